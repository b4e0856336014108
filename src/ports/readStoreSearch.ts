/**
 * Full-text search over a read model collection: the semantics every ReadStore adapter shares (pure functions,
 * no engine). Words are runs of letters, digits and marks; they compare case- and diacritic-insensitively.
 * Adapters index the words this module extracts, so indexing, querying and highlighting agree on what a word
 * is, and no user input ever reaches an engine's query syntax (quotes, `*`, `NEAR`, `:`, parentheses are
 * simply not words).
 */
import { InvalidCursorError, checkFieldPath, type Doc } from './readStore.js';

export interface FullTextSpec {
  /** String fields whose words are indexed (missing or non-string values index nothing). */
  fields: string[];
  /**
   * The field every search filters on by equality (the tenant, e.g. `companyId`). A search never sees another
   * scope's documents, and its cost does not depend on them.
   */
  scope: string;
  /**
   * A non-negative safe-integer field, unique within the collection (e.g. the position of the event that wrote the
   * document): hits come highest first, and the cursor is keyed on it.
   */
  order: string;
}

export interface SearchQuery {
  /** The value of the spec's `scope` field the hits must have. */
  scope: string;
  /** User text: its words must all occur in the document (in any indexed field). */
  text: string;
  /** Default 20, at most 200. */
  limit?: number;
  cursor?: string | null;
}

/** A match inside a field's text: UTF-16 offsets, `end` exclusive (what `String.prototype.slice` takes). */
export interface TextRange {
  start: number;
  end: number;
}

export interface SearchHit<T extends Doc = Doc> {
  doc: T;
  /** Per full-text field, the words that match the query, in order. */
  matches: Record<string, TextRange[]>;
}

export const DEFAULT_SEARCH_LIMIT = 20;
export const MAX_SEARCH_LIMIT = 200;
/** Query words beyond these are ignored: a query's cost stays bounded whatever its length. */
export const MAX_QUERY_TERMS = 16;
/** Words are cut to this length, in documents and queries alike (a 5,000-letter "word" is not a word). */
export const MAX_WORD_LENGTH = 64;

const wordPattern = /[\p{L}\p{N}\p{M}\p{Co}]+/gu;

/** Case and diacritics folded away: "Crème" and "CREME" are the same word. */
export function foldWord(word: string): string {
  return word.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().slice(0, MAX_WORD_LENGTH);
}

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

/** The words of `text` that match a term: equal to it, or (prefix matching) starting with it. */
export function matchRanges(text: string, terms: string[], prefix: boolean): TextRange[] {
  if (terms.length === 0) return [];
  return wordsOf(text)
    .filter((w) => terms.some((t) => (prefix ? w.word.startsWith(t) : w.word === t)))
    .map(({ start, end }) => ({ start, end }));
}

/** Whether every term matches some word of the texts. */
export function matchesAll(texts: string[], terms: string[], prefix: boolean): boolean {
  const words = texts.flatMap((t) => wordsOf(t).map((w) => w.word));
  return terms.every((t) => words.some((w) => (prefix ? w.startsWith(t) : w === t)));
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

function fnv1a(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(36);
}
