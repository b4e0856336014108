/**
 * Full-text search over a read model collection: the semantics every ReadStore adapter shares (pure functions,
 * no engine). Words are runs of letters, digits and marks; they compare case- and diacritic-insensitively.
 * Adapters index the words this module extracts, so indexing, querying and highlighting agree on what a word
 * is, and no user input ever reaches an engine's query syntax (quotes, `*`, `NEAR`, `:`, parentheses are
 * simply not words).
 */
import {
  DEFAULT_SEARCH_LIMIT,
  InvalidCursorError,
  MAX_SEARCH_LIMIT,
  type Doc,
  type FullTextSpec,
  type SearchHit,
  type SearchQuery,
  type TextRange,
} from '../../ports/readStore.js';
import { checkFieldPath, fnv1a } from './specs.js';

/** Query words beyond these are ignored: a query's cost stays bounded whatever its length. */
export const MAX_QUERY_TERMS = 16;
/** Words are cut to this length, in documents and queries alike (a 5,000-letter "word" is not a word). */
export const MAX_WORD_LENGTH = 64;

const wordPattern = /[\p{L}\p{N}\p{M}\p{Co}]+/gu;

/** Case and diacritics folded away: "Crème" and "CREME" are the same word. */
export function foldWord(word: string): string {
  // Most words are ASCII: lower-casing is all they need (normalizing every word would dominate the cost).
  if (asciiWord.test(word)) return word.toLowerCase().slice(0, MAX_WORD_LENGTH);
  return word.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().slice(0, MAX_WORD_LENGTH);
}
const asciiWord = /^[\x00-\x7f]*$/;

export interface Word {
  /** Folded form. */
  word: string;
  start: number;
  end: number;
}

/** The words of a text with their offsets in it (folded forms that come out empty, pure marks, are skipped). */
export function wordsOf(text: string): Word[] {
  const out: Word[] = [];
  for (const m of text.matchAll(wordPattern)) {
    const word = foldWord(m[0]);
    if (word) out.push({ word, start: m.index, end: m.index + m[0].length });
  }
  return out;
}

/** The distinct folded words of a query, at most MAX_QUERY_TERMS; none for a query without a word ("*", `"`). */
export function queryTerms(text: string): string[] {
  const terms: string[] = [];
  for (const { word } of wordsOf(text)) {
    if (!terms.includes(word)) terms.push(word);
    if (terms.length === MAX_QUERY_TERMS) break;
  }
  return terms;
}

/**
 * Highlights are looked for in a window of this many characters from a little before the first match: a hit's
 * snippet is far shorter, and a page of 64 KiB messages must not cost a word-by-word pass over each.
 */
export const HIGHLIGHT_WINDOW = 1000;

const wordChar = /[\p{L}\p{N}\p{M}\p{Co}]/u;
const isWordChar = (ch: string | undefined) => ch !== undefined && wordChar.test(ch);

/** Where `term` occurs in `lower` (a lower-cased text) as a word, or as a word's start (prefix); -1 if nowhere. */
function findWord(lower: string, term: string, prefix: boolean): number {
  for (let i = lower.indexOf(term); i >= 0; i = lower.indexOf(term, i + 1)) {
    if (isWordChar(lower[i - 1])) continue;
    if (!prefix && isWordChar(lower[i + term.length])) continue;
    return i;
  }
  return -1;
}

/** Lower-cased without accents (the same length only when ASCII: for finding, not for offsets). */
function foldText(text: string): string {
  return asciiWord.test(text) ? text.toLowerCase() : text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

/**
 * The words of `text` that match a term (equal to it, or with prefix matching starting with it), in order, within
 * HIGHLIGHT_WINDOW characters from just before the first match found verbatim (else from the start).
 */
export function matchRanges(text: string, terms: string[], prefix: boolean): TextRange[] {
  if (terms.length === 0) return [];
  let start = 0;
  let end = text.length;
  if (text.length > HIGHLIGHT_WINDOW) {
    const lower = text.toLowerCase();
    let first = -1;
    for (const t of terms) {
      const at = findWord(lower, t, prefix);
      if (at >= 0 && (first < 0 || at < first)) first = at;
    }
    start = Math.max(0, first - 100);
    // Start on a word boundary (a cut word could look like a match).
    for (let back = 0; start > 0 && back < MAX_WORD_LENGTH && isWordChar(text[start - 1]); back++) start--;
    end = Math.min(text.length, start + HIGHLIGHT_WINDOW);
  }
  const ranges: TextRange[] = [];
  for (const w of wordsOf(text.slice(start, end))) {
    if (end < text.length && w.end === end - start) break; // the window may cut the last word
    if (terms.some((t) => (prefix ? w.word.startsWith(t) : w.word === t))) ranges.push({ start: w.start + start, end: w.end + start });
  }
  return ranges;
}

/** Accents are folded away in at most this much of a text when checking a match (the costly part). */
const FOLD_LIMIT = 16_384;

/**
 * Whether every term matches some word of the texts (same rules as matchRanges). A term found only with its
 * accents folded is looked for in the first FOLD_LIMIT characters; beyond that a long text is given the benefit
 * of the doubt (the engine's index matched it), so checking a candidate stays cheap.
 */
export function matchesAll(texts: string[], terms: string[], prefix: boolean): boolean {
  const lowered = texts.map((t) => t.toLowerCase());
  let folded: string[] | null = null;
  return terms.every((term) => {
    if (lowered.some((l) => findWord(l, term, prefix) >= 0)) return true;
    folded ??= texts.map((t) => foldText(t.slice(0, FOLD_LIMIT))); // "Crème" holds the word "creme"
    return folded.some((f) => findWord(f, term, prefix) >= 0) || texts.some((t) => t.length > FOLD_LIMIT);
  });
}

/** A document field's value by dotted path, when it is a string. */
export function textField(doc: Doc, path: string): string | null {
  let v: unknown = doc;
  for (const part of path.split('.')) {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return null;
    v = (v as Record<string, unknown>)[part];
  }
  return typeof v === 'string' ? v : null;
}

/** The order value of a document of a full-text collection; throws unless it is a positive safe integer. */
export function orderValue(collection: string, spec: FullTextSpec, doc: Doc): number {
  let v: unknown = doc;
  for (const part of spec.order.split('.')) v = typeof v === 'object' && v !== null ? (v as Record<string, unknown>)[part] : undefined;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) {
    throw new Error(`read model ${collection}: field ${spec.order} of document ${doc.id} must be a non-negative safe integer (full-text order)`);
  }
  return v;
}

export function checkFullTextSpec(collection: string, spec: FullTextSpec): void {
  if (!Array.isArray(spec.fields) || spec.fields.length === 0) throw new Error(`read model ${collection}: fullText needs at least one field`);
  for (const f of [...spec.fields, spec.scope, spec.order]) checkFieldPath(collection, f);
}

/** The hit of a document: its matches per field. */
export function hitOf<T extends Doc>(doc: T, spec: FullTextSpec, terms: string[], prefix: boolean): SearchHit<T> {
  const matches: Record<string, TextRange[]> = {};
  for (const f of spec.fields) matches[f] = matchRanges(textField(doc, f) ?? '', terms, prefix);
  return { doc, matches };
}

export interface NormalizedSearch {
  scope: string;
  terms: string[];
  limit: number;
  /** The order value of the last hit of the previous page: this page holds lower ones. */
  before: number | null;
  signature: string;
}

export function normalizeSearch(collection: string, query: SearchQuery): NormalizedSearch {
  if (typeof query.scope !== 'string') throw new Error(`search on ${collection}: scope must be a string`);
  const terms = queryTerms(typeof query.text === 'string' ? query.text : '');
  const requested = query.limit ?? DEFAULT_SEARCH_LIMIT;
  const limit = Number.isFinite(requested) ? Math.min(Math.max(1, Math.floor(requested)), MAX_SEARCH_LIMIT) : DEFAULT_SEARCH_LIMIT;
  // Scope and words are part of it: a cursor of another company or another query is refused.
  const signature = fnv1a(JSON.stringify(['search', collection, query.scope, terms]));
  let before: number | null = null;
  if (query.cursor) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(query.cursor, 'base64url').toString('utf8'));
    } catch {
      throw new InvalidCursorError('not a cursor');
    }
    const { s, o } = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as { s?: unknown; o?: unknown };
    if (s !== signature) throw new InvalidCursorError('it belongs to another search');
    if (typeof o !== 'number' || !Number.isSafeInteger(o) || o < 0) throw new InvalidCursorError('malformed values');
    before = o;
  }
  return { scope: query.scope, terms, limit, before, signature };
}

export function encodeSearchCursor(query: NormalizedSearch, order: number): string {
  return Buffer.from(JSON.stringify({ s: query.signature, o: order }), 'utf8').toString('base64url');
}
