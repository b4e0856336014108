import { stemmer } from 'stemmer';

/**
 * Query-side vocabulary of a shop's customer service: the words customers ask with, mapped to the words a
 * knowledge base tends to answer with ("return rules" → "policy", "when will my parcel arrive" → "delivery").
 * Deliberately small and generic; a company's own wording is found by stemming and fuzzy matching. Each
 * entry is one-way (the query word on the left gains the words on the right); groups of true synonyms are
 * listed as groups and apply both ways. Matching a synonym counts for the query word it came from, at
 * SYNONYM_WEIGHT of an exact match.
 */
const GROUPS: readonly (readonly string[])[] = [
  ['return', 'refund'],
  ['rule', 'policy', 'condition', 'terms'],
  ['delivery', 'shipping', 'dispatch'],
  ['parcel', 'package', 'shipment'],
  ['cost', 'price', 'fee', 'charge'],
  ['guarantee', 'warranty'],
  ['defect', 'defective', 'faulty', 'broken', 'damaged'],
  ['zip', 'zipper'],
  ['voucher', 'coupon', 'discount', 'promo'],
  ['instalment', 'installment'],
  ['shop', 'store'],
  ['international', 'abroad', 'worldwide', 'overseas'],
  ['cancel', 'cancellation', 'terminate', 'termination'],
  ['courier', 'carrier'],
  ['sweater', 'jumper', 'pullover', 'knitwear'],
  ['swap', 'exchange'],
  ['freeze', 'block'],
  ['bill', 'invoice'],
  ['wash', 'washing', 'laundry', 'clean'],
  ['password', 'login'],
  ['delete', 'erase', 'erasure', 'remove'],
];

const ONE_WAY: Readonly<Record<string, readonly string[]>> = {
  arrive: ['delivery', 'shipping'],
  arrival: ['delivery', 'shipping'],
  deliver: ['shipping'],
  ship: ['delivery'],
  much: ['cost', 'price'],
  money: ['refund'],
  back: ['return'],
  broke: ['defect', 'repair'],
  break: ['defect', 'repair'],
  fix: ['repair'],
  track: ['tracking'],
  shrink: ['wash'],
  open: ['opening', 'hours'],
  close: ['opening', 'hours'],
  hours: ['opening'],
  fit: ['size'],
  gift: ['voucher'],
  card: ['payment'],
  pay: ['payment'],
  personal: ['privacy', 'data'],
  country: ['countries', 'deliver'],
  countries: ['deliver'],
  usa: ['countries'],
  america: ['countries'],
  sign: ['password', 'account'],
  courier: ['shipping', 'delivery'],
  carrier: ['shipping', 'delivery'],
  dryer: ['dry'],
  tumble: ['dry'],
  port: ['keep', 'switch'],
  porting: ['keep', 'switch'],
  uk: ['kingdom', 'britain'],
  britain: ['uk', 'kingdom'],
  europe: ['eu'],
  european: ['eu'],
  eu: ['europe', 'european'],
  '2fa': ['factor', 'authentication'],
  mfa: ['factor', 'authentication'],
  sso: ['single', 'sign'],
};

export const SYNONYM_WEIGHT = 0.5;
/** At most this many related terms per query term: bounds a query's work (MAX_QUERY_TERMS × (1 + this)). */
export const MAX_SYNONYMS_PER_TERM = 4;

/** The index's form of a normalised term: its Porter stem ("returns", "returning" → "return"). */
const stems = new Map<string, string>();
const STEM_CACHE_SIZE = 50_000;
export function stemTerm(term: string): string {
  let stem = stems.get(term);
  if (stem === undefined) {
    stem = stemmer(term);
    if (stems.size >= STEM_CACHE_SIZE) stems.clear(); // a plain bounded memo: prose repeats a few thousand words
    stems.set(term, stem);
  }
  return stem;
}

const related = new Map<string, Set<string>>();
const relate = (from: string, to: string) => {
  const a = stemTerm(from);
  const b = stemTerm(to);
  if (a === b) return;
  const set = related.get(a) ?? new Set<string>();
  set.add(b);
  related.set(a, set);
};
for (const group of GROUPS) for (const a of group) for (const b of group) relate(a, b);
for (const [from, tos] of Object.entries(ONE_WAY)) for (const to of tos) relate(from, to);

/** The stems a query term also matches, besides its own stem (at most MAX_SYNONYMS_PER_TERM). */
export function synonymsOf(stem: string): string[] {
  return [...(related.get(stem) ?? [])].slice(0, MAX_SYNONYMS_PER_TERM);
}
