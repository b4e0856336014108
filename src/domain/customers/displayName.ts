/**
 * The one name the dashboard gives a customer, everywhere (inbox row, conversation header, search, customer
 * panel, notifications): the name their channel or the web-chat pre-chat form gave, else a readable name made
 * from their customer id ("Amber Otter"). Deterministic, so the same customer is the same name on every page and
 * after every rebuild; never the raw platform id, which means nothing to a teammate and can be personal data
 * (a phone number on some channels).
 */

/** 64 × 64 = 4096 names: enough that two customers in one view rarely share one; a clash is harmless (ids differ). */
const ADJECTIVES = [
  'Amber', 'Azure', 'Brave', 'Bright', 'Calm', 'Candid', 'Cheerful', 'Clever', 'Copper', 'Coral', 'Crimson', 'Curious',
  'Daring', 'Dusky', 'Eager', 'Early', 'Emerald', 'Fair', 'Fearless', 'Gentle', 'Gilded', 'Golden', 'Graceful', 'Happy',
  'Hazel', 'Honest', 'Indigo', 'Ivory', 'Jade', 'Jolly', 'Keen', 'Kind', 'Lively', 'Lucky', 'Lunar', 'Maple',
  'Merry', 'Mighty', 'Misty', 'Modest', 'Noble', 'Olive', 'Patient', 'Pearl', 'Plucky', 'Polite', 'Quick', 'Quiet',
  'Rosy', 'Ruby', 'Rustic', 'Sandy', 'Scarlet', 'Silver', 'Sunny', 'Swift', 'Teal', 'Tidy', 'Velvet', 'Violet',
  'Warm', 'Wise', 'Witty', 'Zesty',
] as const;
const ANIMALS = [
  'Otter', 'Badger', 'Beaver', 'Bison', 'Crane', 'Dolphin', 'Eagle', 'Falcon', 'Ferret', 'Finch', 'Fox', 'Gazelle',
  'Gecko', 'Heron', 'Hedgehog', 'Ibis', 'Jackal', 'Jaguar', 'Kestrel', 'Koala', 'Lark', 'Lemur', 'Lynx', 'Magpie',
  'Marten', 'Meerkat', 'Moose', 'Narwhal', 'Newt', 'Ocelot', 'Orca', 'Osprey', 'Owl', 'Panda', 'Panther', 'Parrot',
  'Pelican', 'Penguin', 'Puffin', 'Quail', 'Rabbit', 'Raven', 'Robin', 'Salmon', 'Seal', 'Sparrow', 'Squirrel', 'Stork',
  'Swan', 'Tapir', 'Tiger', 'Toucan', 'Turtle', 'Walrus', 'Weasel', 'Whale', 'Wolf', 'Wombat', 'Wren', 'Yak',
  'Zebra', 'Alpaca', 'Bear', 'Cougar',
] as const;

/**
 * "Amber Otter" from a customer id (a UUID, `customerIdFor`): the adjective from its first hex byte, the animal
 * from its second, so it needs no hashing of its own. Anything else (an id without hex digits) still gets a
 * stable name from its characters.
 */
export function generatedCustomerName(customerId: string): string {
  const hex = customerId.replace(/[^0-9a-f]/gi, '');
  let a: number;
  let b: number;
  if (hex.length >= 4) {
    a = parseInt(hex.slice(0, 2), 16);
    b = parseInt(hex.slice(2, 4), 16);
  } else {
    // FNV-1a over the characters: stable, pure, no crypto needed for a display name.
    let h = 0x811c9dc5;
    for (let i = 0; i < customerId.length; i++) h = Math.imul(h ^ customerId.charCodeAt(i), 0x01000193) >>> 0;
    a = h & 0xff;
    b = (h >>> 8) & 0xff;
  }
  return `${ADJECTIVES[a % ADJECTIVES.length]} ${ANIMALS[b % ANIMALS.length]}`;
}

/** Longest name kept for display; a platform may send anything. */
const MAX_NAME = 120;

/** A name the customer gave (the platform's client name, or one set in the widget), tidied for display; null when none. */
export function givenName(raw: unknown): string | null {
  if (typeof raw !== 'string') return null;
  const name = raw.replace(/[\u0000-\u001f\u007f]+/g, ' ').replace(/\s+/g, ' ').trim();
  return name ? name.slice(0, MAX_NAME) : null;
}

/** The customer's display name: the name they gave (tidied), else the generated one of their customer id. */
export function customerDisplayNameOf(customerId: string, profileName: unknown): string {
  return givenName(profileName) ?? generatedCustomerName(customerId);
}
