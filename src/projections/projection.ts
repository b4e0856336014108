import type { RecordedEvent } from '../ports/eventStore.js';
import type { CollectionSpec, Doc, FindQuery, Page } from '../ports/readStore.js';

/**
 * What a projection sees while it applies a batch of events: a unit of work over the read store. Writes are
 * buffered and committed together with the projection's checkpoint after the batch.
 */
export interface ProjectionContext {
  /** The document as this batch left it: the batch's own pending writes first, then the committed store. */
  get<T extends Doc>(collection: string, id: string): Promise<T | null>;
  /**
   * Committed data only: writes pending in this batch are not visible, so a result can depend on where batch
   * boundaries fall. Projections that must give the same result on a rebuild look documents up by id (`get`).
   */
  find<T extends Doc>(collection: string, query: FindQuery): Promise<Page<T>>;
  /** Replaces the whole document (the stored copy is a snapshot: later changes to `doc` are not seen). */
  put(collection: string, doc: Doc): void;
  delete(collection: string, id: string): void;
}

export interface Projection {
  /** Unique; also the checkpoint key. */
  name: string;
  /** The collections it writes (only these); their indexes are created at start-up. */
  collections: CollectionSpec[];
  /** The event types it applies; others are skipped without calling apply. */
  eventTypes: string[];
  /**
   * Applies one event. Must be deterministic (same events → same documents, so a rebuild reproduces the live
   * read model) and must not cause effects outside the context. Throwing stops the projection at this event.
   */
  apply(event: RecordedEvent, ctx: ProjectionContext): Promise<void>;
}
