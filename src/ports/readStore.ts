import type { FullTextSpec, SearchHit, SearchQuery } from './readStoreSearch.js';

/**
 * The read store port: disposable read models built by projectors. Documents are plain JSON keyed by
 * `id` within a collection; queries filter by equality on declared index fields and sort by them, and a
 * collection that declares `fullText` can be searched by words (readStoreSearch.ts).
 */
export interface Doc {
  id: string;
  [field: string]: unknown;
}

export type Scalar = string | number | boolean | null;

export interface FindQuery {
  /** Equality on fields; every field used here must be declared in the collection's indexes. */
  where?: Record<string, Scalar>;
  /**
   * Sort order; `id` is always appended as the final tie-breaker (in the direction of the last entry) so
   * cursors are stable. null and missing values sort first ascending, last descending.
   */
  orderBy?: { field: string; direction: 'asc' | 'desc' }[];
  /** Default 50, at most 1000 (the HTTP layer caps lists at 200). */
  limit?: number;
  /** Opaque cursor returned as `nextCursor` by the previous page (same where and orderBy, else InvalidCursorError). */
  cursor?: string | null;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export interface CollectionSpec {
  /** Letters, digits and `_`, starting with a letter. */
  name: string;
  /**
   * Fields queried with `where` or `orderBy` (dotted paths allowed). A string is a single-field index; an
   * array is one compound index, equality fields first, then sort fields, e.g. `['companyId', 'updatedAt']`.
   * `id` is always queryable and always the last key of every index.
   */
  indexes: (string | string[])[];
  /**
   * Makes the collection searchable with `search`: the words of these fields are indexed per scope, kept in
   * the same commit as the documents and in the same generation.
   */
  fullText?: FullTextSpec;
}

export type WriteOp =
  | { kind: 'put'; collection: string; doc: Doc }
  | { kind: 'delete'; collection: string; id: string };

export interface ReadStore {
  /** Declares collections and their index fields (idempotent; called at start-up by the projectors). */
  ensureCollections(specs: CollectionSpec[]): Promise<void>;
  get<T extends Doc = Doc>(collection: string, id: string): Promise<T | null>;
  find<T extends Doc = Doc>(collection: string, query?: FindQuery): Promise<Page<T>>;
  count(collection: string, where?: Record<string, Scalar>): Promise<number>;
  /**
   * Documents of a `fullText` collection whose scope field equals `query.scope` and whose indexed fields hold
   * every word of `query.text` (a word also matches longer words it begins where the engine allows: SQLite;
   * MongoDB matches whole words), highest `order` first, with the matching words' offsets. A text without a
   * word gives no hits. Cost: one index lookup per page, bounded by the limit, never by other scopes' data.
   */
  search<T extends Doc = Doc>(collection: string, query: SearchQuery): Promise<Page<SearchHit<T>>>;
  /**
   * Applies one projector's batch and moves its checkpoint to `position`, atomically where the engine
   * allows (SQLite) and idempotently otherwise (MongoDB: each document carries the position that wrote it,
   * and an older position never overwrites a newer one). A commit at or below the projector's checkpoint is a
   * replay and changes nothing. Several ops on one document in one commit: the last one wins.
   *
   * `after` is the checkpoint the batch was computed on (what the projector read its documents against). When
   * given and the checkpoint has moved since (another instance projected in between), the batch was computed
   * from stale documents: nothing is written and ProjectionConflictError is thrown, so the projector starts
   * again from the stored checkpoint. Without it, two processors sharing a read store would apply the events
   * between the two checkpoints twice (a counter counted twice).
   */
  commit(projector: string, ops: WriteOp[], position: bigint, after?: bigint | null): Promise<void>;
  /** Last position the projector committed; null when it never ran. */
  checkpoint(projector: string): Promise<bigint | null>;
  /**
   * Checkpoints of reactors (event → bus job). Unlike projector checkpoints they belong to no generation:
   * a rebuild of the read models must not make a reactor publish every old job again. Only moves forward.
   */
  reactorCheckpoint(reactor: string): Promise<bigint | null>;
  saveReactorCheckpoint(reactor: string, position: bigint): Promise<void>;
  /** A view of the same store writing to a fresh, empty generation of every collection (for rebuilds). */
  startRebuild(): Promise<ReadStoreRebuild>;
  /** The generation queries currently read from (for a view from atGeneration: that generation). */
  activeGeneration(): Promise<number>;
  /**
   * A view bound to one generation: reads and writes go there only, whatever becomes active later. Its writes
   * (commit, ensureCollections) throw StaleGenerationError once a newer generation is active, so a projector
   * that missed a switch-over cannot write into a dropped generation or mix two generations in one batch.
   */
  atGeneration(generation: number): ReadStore;
  close(): Promise<void>;
}

export interface ReadStoreRebuild {
  readonly generation: number;
  /** A ReadStore whose reads and writes go to the new generation only. */
  readonly store: ReadStore;
  /** Atomically makes the new generation the one every ReadStore instance reads from, then drops the old. */
  switchOver(): Promise<void>;
  abort(): Promise<void>;
}

/** A write to a generation that is no longer active (a rebuild switched over meanwhile). */
export class StaleGenerationError extends Error {
  override readonly name = 'StaleGenerationError';
  constructor(
    readonly generation: number,
    readonly active: number,
  ) {
    super(`read store generation ${generation} is stale: generation ${active} is active`);
  }
}

/** A projector's batch computed on a checkpoint another writer has since moved (see ReadStore.commit). */
export class ProjectionConflictError extends Error {
  override readonly name = 'ProjectionConflictError';
  constructor(
    readonly projector: string,
    readonly expected: bigint | null,
    readonly actual: string | null,
  ) {
    super(`projection ${projector} was advanced elsewhere (expected checkpoint ${expected === null ? 'none' : String(expected)}, found ${actual ?? 'none'})`);
  }
}

/** A cursor that was not produced by the same query (malformed, or another where/orderBy). */
export class InvalidCursorError extends Error {
  override readonly name = 'InvalidCursorError';
  constructor(reason: string) {
    super(`invalid cursor: ${reason}`);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Semantics shared by every adapter (pure functions, no engine): names, limits, sort keys, cursors, positions.
// ---------------------------------------------------------------------------------------------------------

export const DEFAULT_FIND_LIMIT = 50;
export const MAX_FIND_LIMIT = 1000;
/** Field names an adapter may use for its own bookkeeping; documents and indexes may not use them. */
export const RESERVED_FIELDS: readonly string[] = ['_id', '_pos', '_del', '_lang'];

const collectionNamePattern = /^[A-Za-z][A-Za-z0-9_]{0,62}$/;
const fieldPathPattern = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;

export function checkCollectionName(name: string): void {
  if (!collectionNamePattern.test(name)) throw new Error(`invalid read model collection name: ${JSON.stringify(name)}`);
}

export function checkFieldPath(collection: string, field: string): void {
  if (!fieldPathPattern.test(field) || RESERVED_FIELDS.includes(field.split('.')[0]!)) {
    throw new Error(`invalid field ${JSON.stringify(field)} in read model collection ${collection}`);
  }
}

/** Validates a spec and returns its indexes as field lists (each without the implicit trailing `id`). */
export function indexKeys(spec: CollectionSpec): string[][] {
  checkCollectionName(spec.name);
  const out: string[][] = [];
  for (const entry of spec.indexes) {
    const fields = (typeof entry === 'string' ? [entry] : entry).filter((f) => f !== 'id');
    for (const f of fields) checkFieldPath(spec.name, f);
    if (fields.length > 0) out.push(fields);
  }
  return out;
}

/** Every field a query on this collection may use. */
export function queryableFields(spec: CollectionSpec): Set<string> {
  return new Set(['id', ...indexKeys(spec).flat()]);
}

export function checkDoc(collection: string, doc: Doc): void {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    throw new Error(`read model ${collection}: a document must be an object`);
  }
  if (typeof doc.id !== 'string' || doc.id.length === 0) {
    throw new Error(`read model ${collection}: a document needs a non-empty string id`);
  }
  for (const k of RESERVED_FIELDS) {
    if (k in doc) throw new Error(`read model ${collection}: field ${k} is reserved`);
  }
}

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

function fnv1a(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(36);
}

/** Only the last op per (collection, id) counts, in the order of those last ops. */
export function collapseOps(ops: WriteOp[]): WriteOp[] {
  const last = new Map<string, WriteOp>();
  for (const op of ops) {
    const key = `${op.collection}\u0000${op.kind === 'put' ? op.doc.id : op.id}`;
    last.delete(key);
    last.set(key, op);
  }
  return [...last.values()];
}

/**
 * A position as a fixed-width decimal string (20 digits: every unsigned 64-bit value), so engines compare
 * positions as strings without ever turning them into lossy JS numbers.
 */
export function positionKey(position: bigint): string {
  if (position < 0n || position > 0xffff_ffff_ffff_ffffn) throw new Error(`position ${position} is out of range`);
  return position.toString().padStart(20, '0');
}
