import type { z } from 'zod';
import type { RecordedEvent } from '../ports/eventStore.js';
import type { CollectionSpec, Doc, FindQuery, Page } from '../ports/readStore.js';

type Schemas = Record<string, z.ZodType>;

/** The recorded events of some of a catalog's types, each with its zod-typed data (narrowed by `type`). */
export type RecordedEventOf<S extends Schemas, K extends keyof S & string = keyof S & string> = {
  [T in K]: RecordedEvent<T, z.infer<S[T]>>;
}[K];

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

/**
 * A read model built from events of the types it declares. `E` is the union of those events: the event store
 * validates every event against its schema when read, so `apply` receives data of the declared shape.
 */
export interface Projection<E extends RecordedEvent = RecordedEvent> {
  /** Unique; also the checkpoint key. */
  name: string;
  /** The collections it writes (only these); their indexes are created at start-up. */
  collections: CollectionSpec[];
  /** The event types it applies; others are skipped without calling apply. */
  eventTypes: E['type'][];
  /**
   * Applies one event. Must be deterministic (same events → same documents, so a rebuild reproduces the live
   * read model) and must not cause effects outside the context. Throwing stops the projection at this event.
   */
  apply(event: E, ctx: ProjectionContext): Promise<void>;
}

/**
 * A projection over some of `schemas`' event types (inferred from `eventTypes`): `apply` gets those events
 * typed by their schemas, with no cast. Refuses a type the schemas do not define.
 */
export function defineProjection<S extends Schemas, K extends keyof S & string>(
  schemas: S,
  projection: Projection<RecordedEventOf<S, K>> & { eventTypes: K[] },
): Projection<RecordedEventOf<S, K>> {
  for (const type of projection.eventTypes) {
    if (!(type in schemas)) throw new Error(`projection ${projection.name}: no schema for event type ${type}`);
  }
  return projection;
}
