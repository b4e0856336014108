/**
 * Find queries as every read store adapter runs them (pure functions, no engine): defaults and limits, the
 * `id` tie-breaker, sort values and opaque cursors.
 */
import {
  DEFAULT_FIND_LIMIT,
  InvalidCursorError,
  MAX_FIND_LIMIT,
  type CollectionSpec,
  type Doc,
  type FindQuery,
  type Scalar,
} from '../../ports/readStore.js';
import { checkFieldPath, fnv1a, queryableFields } from './specs.js';

export interface SortKey {
  field: string;
  direction: 'asc' | 'desc';
}

export interface NormalizedFind {
  where: [field: string, value: Scalar][];
  /** The requested order with the `id` tie-breaker last. */
  sort: SortKey[];
  limit: number;
  /** Sort values (one per sort key, id last) of the row the previous page ended on. */
  after: Scalar[] | null;
  /** Identifies collection + where + orderBy inside a cursor. */
  signature: string;
}

/**
 * Validates a query (fields declared when the spec is known, scalar where values) and resolves defaults,
 * the tie-breaker and the cursor.
 */
export function normalizeFind(collection: string, query: FindQuery = {}, spec?: CollectionSpec): NormalizedFind {
  const allowed = spec ? queryableFields(spec) : null;
  const checkField = (field: string) => {
    if (field !== 'id') checkFieldPath(collection, field);
    if (allowed && !allowed.has(field)) {
      throw new Error(`field ${field} is not declared in the indexes of read model collection ${collection}`);
    }
  };
  const where: [string, Scalar][] = [];
  for (const [field, value] of Object.entries(query.where ?? {})) {
    checkField(field);
    if (!isScalar(value)) throw new Error(`where.${field} on ${collection} must be a string, finite number, boolean or null`);
    where.push([field, value]);
  }
  where.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const sort: SortKey[] = [];
  for (const key of query.orderBy ?? []) {
    checkField(key.field);
    if (key.direction !== 'asc' && key.direction !== 'desc') throw new Error(`orderBy ${key.field}: direction must be asc or desc`);
    if (sort.some((k) => k.field === key.field)) throw new Error(`orderBy lists ${key.field} twice`);
    sort.push({ field: key.field, direction: key.direction });
    if (key.field === 'id') break; // unique: later keys could never apply
  }
  if (sort.at(-1)?.field !== 'id') sort.push({ field: 'id', direction: sort.at(-1)?.direction ?? 'asc' });
  const requested = query.limit ?? DEFAULT_FIND_LIMIT;
  const limit = Number.isFinite(requested) ? Math.min(Math.max(1, Math.floor(requested)), MAX_FIND_LIMIT) : DEFAULT_FIND_LIMIT;
  // The collection is part of it: two lists with the same filter and order must not accept each other's cursors.
  const signature = fnv1a(JSON.stringify([collection, where, sort.map((k) => `${k.field}:${k.direction}`)]));
  const after = query.cursor ? decodeCursor(query.cursor, signature, sort.length) : null;
  return { where, sort, limit, after, signature };
}

/** The cursor pointing after `doc` in a result ordered by `query.sort`. */
export function encodeCursor(query: NormalizedFind, doc: Doc): string {
  const values = query.sort.map((k) => sortValue(doc, k.field));
  return Buffer.from(JSON.stringify({ s: query.signature, v: values }), 'utf8').toString('base64url');
}

function decodeCursor(cursor: string, signature: string, keys: number): Scalar[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new InvalidCursorError('not a cursor');
  }
  if (typeof parsed !== 'object' || parsed === null) throw new InvalidCursorError('not a cursor');
  const { s, v } = parsed as { s?: unknown; v?: unknown };
  if (s !== signature) throw new InvalidCursorError('it belongs to another query');
  if (!Array.isArray(v) || v.length !== keys || !v.every(isScalar) || typeof v.at(-1) !== 'string') {
    throw new InvalidCursorError('malformed values');
  }
  return v as Scalar[];
}

/** The value a document sorts by: missing counts as null; only scalars can be sorted on. */
export function sortValue(doc: Doc, path: string): Scalar {
  let v: unknown = doc;
  for (const part of path.split('.')) {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return null;
    v = (v as Record<string, unknown>)[part];
  }
  if (v === undefined) return null;
  if (!isScalar(v)) throw new Error(`cannot sort on field ${path}: its value is not a scalar`);
  return v;
}

function isScalar(v: unknown): v is Scalar {
  return v === null || typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));
}
