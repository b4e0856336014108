/**
 * The read store port: disposable read models built by projectors. Documents are plain JSON keyed by
 * `id` within a collection; queries filter by equality on declared index fields and sort by them.
 */
export interface Doc {
  id: string;
  [field: string]: unknown;
}

export type Scalar = string | number | boolean | null;

export interface FindQuery {
  /** Equality on fields; every field used here must be declared in the collection's indexes. */
  where?: Record<string, Scalar>;
  /** Sort order; `id` is always appended as the final tie-breaker so cursors are stable. */
  orderBy?: { field: string; direction: 'asc' | 'desc' }[];
  /** Default 50, at most 1000 (the HTTP layer caps lists at 200). */
  limit?: number;
  /** Opaque cursor returned as `nextCursor` by the previous page. */
  cursor?: string | null;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export interface CollectionSpec {
  name: string;
  /** Fields queried with `where` or `orderBy`. */
  indexes: string[];
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
   * Applies one projector's batch and moves its checkpoint to `position`, atomically where the engine
   * allows (SQLite) and idempotently otherwise (MongoDB: each document carries the position that wrote it,
   * and an older position never overwrites a newer one).
   */
  commit(projector: string, ops: WriteOp[], position: bigint): Promise<void>;
  /** Last position the projector committed; null when it never ran. */
  checkpoint(projector: string): Promise<bigint | null>;
  /** A view of the same store writing to a fresh, empty generation of every collection (for rebuilds). */
  startRebuild(): Promise<ReadStoreRebuild>;
  /** The generation queries currently read from. */
  activeGeneration(): Promise<number>;
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
