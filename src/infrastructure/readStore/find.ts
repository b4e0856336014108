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
import { checkFieldPath, fnv1a, indexKeys, queryableFields } from './specs.js';

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
  if (spec) checkIndexServes(spec, where.map(([field]) => field), sort);
  const requested = query.limit ?? DEFAULT_FIND_LIMIT;
  const limit = Number.isFinite(requested) ? Math.min(Math.max(1, Math.floor(requested)), MAX_FIND_LIMIT) : DEFAULT_FIND_LIMIT;
  // The collection is part of it: two lists with the same filter and order must not accept each other's cursors.
  const signature = fnv1a(JSON.stringify([collection, where, sort.map((k) => `${k.field}:${k.direction}`)]));
  const after = query.cursor ? decodeCursor(query.cursor, signature, sort.length) : null;
  return { where, sort, limit, after, signature };
}

/**
 * Every query runs on one declared index, so no engine sorts or filters in memory however large the
 * collection: its equality fields (in any order) are the first keys of a compound index and its sort fields
 * (in order) the next ones, in one direction (the indexes are ascending, read forwards or backwards); `id`,
 * the last key of every index, breaks ties. A field that only says "each field is in some index" is not
 * enough: MongoDB then sorts a company's page by `at` in memory, on every company's documents. Checked on
 * every query by every adapter, so every test of a list proves its index.
 */
export function checkIndexServes(spec: CollectionSpec, whereFields: string[], sort: SortKey[]): void {
  if (whereFields.includes('id')) return; // one document at most
  const sortFields = sort.map((k) => k.field).filter((f) => f !== 'id' && !whereFields.includes(f));
  const describe = () => `where ${whereFields.join(', ') || '(none)'}; order by ${sort.map((k) => `${k.field} ${k.direction}`).join(', ')}`;
  if (new Set(sort.map((k) => k.direction)).size > 1) {
    throw new Error(`query on read model collection ${spec.name} (${describe()}) mixes sort directions: no ascending index serves it`);
  }
  if (whereFields.length === 0 && sortFields.length === 0) return;
  const equality = new Set(whereFields);
  const served = indexKeys(spec).some(
    (keys) =>
      keys.length >= equality.size + sortFields.length &&
      keys.slice(0, equality.size).every((f) => equality.has(f)) &&
      sortFields.every((f, i) => keys[equality.size + i] === f),
  );
  if (!served) {
    throw new Error(
      `query on read model collection ${spec.name} (${describe()}) has no index: declare the compound index ${JSON.stringify([...whereFields, ...sortFields])} in its spec`,
    );
  }
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
