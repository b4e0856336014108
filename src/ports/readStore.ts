/**
 * The read store port: disposable read models built by projectors. Documents are plain JSON keyed by
 * `id` within a collection; queries filter by equality on declared index fields and sort by them, and a
 * collection that declares `fullText` can be searched by words (`search`). What every adapter shares beyond
 * this contract (names, cursors, positions, what a word is) lives in src/infrastructure/readStore/.
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
// Full-text search: what a searchable collection declares, what a search asks and what it finds.
// ---------------------------------------------------------------------------------------------------------

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
  /** Default 20, at most 50 (every hit is parsed and highlighted). */
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
  /** Per full-text field, the words that match the query, in order (near the first match: HIGHLIGHT_WINDOW in
   * src/infrastructure/readStore/fullText.ts). */
  matches: Record<string, TextRange[]>;
}

export const DEFAULT_SEARCH_LIMIT = 20;
export const MAX_SEARCH_LIMIT = 50;

// ---------------------------------------------------------------------------------------------------------
// Limits and the rule a document obeys, the same in every adapter (the projection runner checks it too).
// ---------------------------------------------------------------------------------------------------------

export const DEFAULT_FIND_LIMIT = 50;
export const MAX_FIND_LIMIT = 1000;
/** Field names an adapter may use for its own bookkeeping; documents and indexes may not use them. */
export const RESERVED_FIELDS: readonly string[] = ['_id', '_pos', '_tpos', '_del', '_delAt', '_lang', '_words'];

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
