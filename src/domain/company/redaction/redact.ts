/**
 * Redaction before the model: e-mail addresses, phone numbers, payment card numbers (Luhn-checked) and IBANs
 * (mod-97 checked) in a customer's words are replaced by placeholders (`[EMAIL_1]`, `[PHONE_1]`, `[CARD_1]`,
 * `[IBAN_1]`) before the text reaches the company's model, and put back where the model's answer uses one.
 *
 * Hand-written scanners, no regular expressions: the text is the customer's, so every scanner starts only at a
 * word boundary (or, for an address, at an `@`) and reads a bounded number of characters from there, which keeps a
 * message's redaction linear in its length whatever it holds. What looks like one of these but is not (an order
 * number, a date, a version, a card number that fails Luhn) is left as it is.
 */

export type RedactedKind = 'EMAIL' | 'PHONE' | 'CARD' | 'IBAN';

interface Found {
  start: number;
  end: number;
  kind: RedactedKind;
  /** The same value written twice (an address in another case, a number with other spaces) is one placeholder. */
  key: string;
}

const MAX_LOCAL = 64;
const MAX_DOMAIN = 253;

const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';
const isLetter = (c: string | undefined) => c !== undefined && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'));
const isAlnum = (c: string | undefined) => isDigit(c) || isLetter(c);
const isLocalChar = (c: string | undefined) => isAlnum(c) || c === '.' || c === '_' || c === '%' || c === '+' || c === '-';
const isDomainChar = (c: string | undefined) => isAlnum(c) || c === '.' || c === '-';
/** Where a number may start: not inside a word or another number, nor after a sign or a decimal point. */
const numberMayStartAfter = (c: string | undefined) => c === undefined || !(isAlnum(c) || c === '.' || c === '-' || c === '/' || c === '+' || c === '_' || c === ',');
const numberMayEndBefore = (c: string | undefined) => c === undefined || !(isAlnum(c) || c === '_' || c === '@');

/** Addresses: from each `@`, a local part back (stopping at the previous `@`) and a dotted domain on. */
function findEmails(text: string): Found[] {
  const found: Found[] = [];
  let floor = 0; // never read back into an address already found
  for (let at = text.indexOf('@'); at !== -1; at = text.indexOf('@', at + 1)) {
    let start = at;
    while (start > floor && at - start < MAX_LOCAL && isLocalChar(text[start - 1])) start--;
    if (start > floor && isLocalChar(text[start - 1])) continue; // longer than an address allows
    while (start < at && text[start] === '.') start++;
    if (start === at) continue;
    let end = at + 1;
    while (end < text.length && end - at <= MAX_DOMAIN && isDomainChar(text[end])) end++;
    while (end > at + 1 && (text[end - 1] === '.' || text[end - 1] === '-')) end--;
    const domain = text.slice(at + 1, end);
    const labels = domain.split('.');
    const tld = labels.at(-1)!;
    if (labels.length < 2 || labels.some((l) => l.length === 0 || l.length > 63) || tld.length < 2 || ![...tld].every(isLetter)) continue;
    found.push({ start, end, kind: 'EMAIL', key: text.slice(start, end).toLowerCase() });
    floor = end;
  }
  return found;
}

/**
 * Digits in groups separated by one separator each (from `separators`), at most `maxDigits` of them: the groups
 * read from `start`. Stops at anything else; `null` when more digits follow than a number of this kind has.
 */
function digitGroups(text: string, start: number, separators: string, maxDigits: number): { end: number; digits: string; groups: number[] } | null {
  let i = start;
  let digits = '';
  const groups: number[] = [];
  for (;;) {
    const groupStart = i;
    while (isDigit(text[i])) {
      digits += text[i];
      if (digits.length > maxDigits) return null;
      i++;
    }
    if (i === groupStart) return null;
    groups.push(i - groupStart);
    if (separators.includes(text[i] ?? '\u0000') && isDigit(text[i + 1])) i++;
    else return { end: i, digits, groups };
  }
}

function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum % 10 === 0;
}

/** A card number: 13 to 19 digits, in groups split by single spaces or dashes, passing Luhn's check. */
function cardAt(text: string, start: number): Found | null {
  const read = digitGroups(text, start, ' -', 19);
  if (!read || read.digits.length < 13 || !numberMayEndBefore(text[read.end]) || !luhn(read.digits)) return null;
  return { start, end: read.end, kind: 'CARD', key: read.digits };
}

/**
 * A phone number: `+` and 8 to 15 digits (E.164) in groups; or, without a country code, 9 to 15 digits written
 * as people write a phone (a leading 0 or a bracketed area code: `020 7946 0958`, `(555) 123-4567`, or 3-3-4
 * groups: `555-123-4567`). A bare run of digits (an order number), a date (4-2-2) or a version is not one.
 */
function phoneAt(text: string, start: number): Found | null {
  let i = start;
  const plus = text[i] === '+';
  if (plus) i++;
  let digits = '';
  const groups: number[] = [];
  let bracketed = false;
  for (;;) {
    const bracket = text[i] === '(';
    if (bracket) i++;
    const from = i;
    while (isDigit(text[i]) && i - from <= 15) i++;
    if (i === from || (bracket && (text[i] !== ')' || i - from > 5))) return null;
    digits += text.slice(from, i);
    if (digits.length > 15) return null;
    groups.push(i - from);
    if (bracket) {
      bracketed = true;
      i++;
      if (isDigit(text[i])) continue; // "(555)123-4567"
    }
    // One separator between groups, and only before another group.
    if ((text[i] === ' ' || text[i] === '-' || text[i] === '.') && (isDigit(text[i + 1]) || text[i + 1] === '(')) i++;
    else break;
  }
  if (!numberMayEndBefore(text[i])) return null;
  const threeThreeFour = groups.length === 3 && groups[0] === 3 && groups[1] === 3 && groups[2] === 4;
  const written = bracketed || threeThreeFour || (digits[0] === '0' && groups.length > 1);
  const ok = plus ? digits.length >= 8 && digits.length <= 15 : digits.length >= 9 && digits.length <= 15 && written;
  return ok ? { start, end: i, kind: 'PHONE', key: `${plus ? '+' : ''}${digits}` } : null;
}

/** Remainder of a number given as decimal digits, mod 97, after `digits` were appended to `rem`. */
const mod97 = (rem: number, digits: string) => {
  for (let k = 0; k < digits.length; k++) rem = (rem * 10 + (digits.charCodeAt(k) - 48)) % 97;
  return rem;
};
/** An IBAN character as the mod-97 check reads it: a digit itself, a letter 10 (A) to 35 (Z). */
const ibanValue = (c: string) => (isDigit(c) ? c : String(c.toUpperCase().charCodeAt(0) - 55));

/**
 * An IBAN: a country's two letters, two check digits, then 11 to 30 letters and digits, written together or in
 * groups split by single spaces; the longest reading whose mod-97 remainder is 1 (what follows a printed IBAN
 * may be a word).
 */
function ibanAt(text: string, start: number): Found | null {
  if (!isLetter(text[start]) || !isLetter(text[start + 1]) || !isDigit(text[start + 2]) || !isDigit(text[start + 3])) return null;
  const head = ibanValue(text[start]!) + ibanValue(text[start + 1]!) + text[start + 2] + text[start + 3];
  let rem = 0;
  let length = 4;
  let i = start + 4;
  let best: Found | null = null;
  const key = [text.slice(start, start + 4).toUpperCase()];
  for (;;) {
    if (text[i] === ' ' && isAlnum(text[i + 1])) i++;
    if (!isAlnum(text[i]) || length === 34) break;
    while (isAlnum(text[i]) && length < 34) {
      rem = mod97(rem, ibanValue(text[i]!));
      key.push(text[i]!.toUpperCase());
      length++;
      i++;
    }
    if (isAlnum(text[i])) return best; // longer than any IBAN
    if (length >= 15 && numberMayEndBefore(text[i]) && mod97(rem, head) === 1) best = { start, end: i, kind: 'IBAN', key: key.join('') };
  }
  return best;
}

/** Every card, IBAN and phone number, left to right, each starting where a word or number may start. */
function findNumbers(text: string, taken: Found[]): Found[] {
  const found: Found[] = [];
  let next = 0; // index into `taken` (the addresses, sorted)
  for (let i = 0; i < text.length; i++) {
    while (next < taken.length && taken[next]!.end <= i) next++;
    if (next < taken.length && taken[next]!.start <= i) {
      i = taken[next]!.end - 1;
      continue;
    }
    const c = text[i];
    if (!(isAlnum(c) || c === '+' || c === '(') || !numberMayStartAfter(text[i - 1])) continue;
    const hit = isLetter(c) ? ibanAt(text, i) : (cardAt(text, i) ?? phoneAt(text, i));
    if (hit && (next >= taken.length || hit.end <= taken[next]!.start)) {
      found.push(hit);
      i = hit.end - 1;
    } else if (isAlnum(c)) {
      // Not one: skip the rest of this word or digit run (its inside is no place to start).
      while (isAlnum(text[i + 1])) i++;
    }
  }
  return found;
}

const PLACEHOLDER_KINDS: readonly RedactedKind[] = ['EMAIL', 'PHONE', 'CARD', 'IBAN'];

/**
 * One conversation's redaction: every text given to `redact` (the history and the new messages of one prompt)
 * shares its placeholders, so the same address is `[EMAIL_1]` wherever it appears; `restore` puts the originals
 * back into what the model wrote.
 */
export interface Redactor {
  redact(text: string): string;
  restore(text: string): string;
  /** How many values were replaced (so far): none, and the model saw the words as they are. */
  readonly count: number;
}

export function createRedactor(): Redactor {
  const byKey = new Map<string, string>();
  const originals = new Map<string, string>();
  const counters: Record<RedactedKind, number> = { EMAIL: 0, PHONE: 0, CARD: 0, IBAN: 0 };
  const placeholderOf = (f: Found, original: string) => {
    const id = `${f.kind}:${f.key}`;
    let placeholder = byKey.get(id);
    if (!placeholder) {
      placeholder = `[${f.kind}_${++counters[f.kind]}]`;
      byKey.set(id, placeholder);
      originals.set(placeholder, original);
    }
    return placeholder;
  };
  return {
    get count() {
      return byKey.size;
    },
    redact(text) {
      const emails = findEmails(text);
      const all = [...emails, ...findNumbers(text, emails)].sort((a, b) => a.start - b.start);
      if (all.length === 0) return text;
      let out = '';
      let from = 0;
      for (const f of all) {
        out += text.slice(from, f.start) + placeholderOf(f, text.slice(f.start, f.end));
        from = f.end;
      }
      return out + text.slice(from);
    },
    restore(text) {
      if (originals.size === 0) return text;
      let out = '';
      let from = 0;
      for (let open = text.indexOf('['); open !== -1; open = text.indexOf('[', open + 1)) {
        const close = placeholderEnd(text, open);
        if (close === -1) continue;
        const original = originals.get(text.slice(open, close));
        if (original === undefined) continue;
        out += text.slice(from, open) + original;
        from = close;
        open = close - 1;
      }
      return out + text.slice(from);
    },
  };
}

/** The index after a placeholder's `]` when one starts at `open` (`[KIND_<digits>]`), else -1. Bounded read. */
function placeholderEnd(text: string, open: number): number {
  for (const kind of PLACEHOLDER_KINDS) {
    if (!text.startsWith(kind, open + 1) || text[open + 1 + kind.length] !== '_') continue;
    let i = open + 2 + kind.length;
    const from = i;
    while (isDigit(text[i]) && i - from < 6) i++;
    return i > from && text[i] === ']' ? i + 1 : -1;
  }
  return -1;
}
