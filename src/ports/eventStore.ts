/**
 * The event store port. Revisions (per stream, from 0) and positions (global, strictly increasing,
 * never reused) are bigint so EventStoreDB's 64-bit values survive; they cross JSON as strings.
 */
export type ExpectedRevision = 'no_stream' | 'stream_exists' | 'any' | bigint;

export interface EventMetadata {
  companyId?: string;
  correlationId?: string;
  causationId?: string;
  actor?: string;
  /**
   * W3C traceparent of the span that wrote the event (only with tracing on): what follows the event (a job, its
   * worker's span) joins the same trace, in any thread or process. Ids and a flag only, never a secret.
   */
  traceparent?: string;
}

export interface NewEvent<T extends string = string, D = unknown> {
  /**
   * UUID; deterministic when derived from a dedupe key, so a retry at the same expected revision appends
   * nothing (see EventStore.append for what a repeated id does elsewhere).
   */
  id: string;
  type: T;
  data: D;
  metadata?: EventMetadata;
}

export interface RecordedEvent<T extends string = string, D = unknown> {
  id: string;
  stream: string;
  type: T;
  data: D;
  metadata: EventMetadata;
  revision: bigint;
  position: bigint;
  /** ISO 8601 UTC with milliseconds, set by the store at commit. */
  createdAt: string;
}

export interface AppendResult {
  /** Revision of the last event now in the stream. */
  nextRevision: bigint;
  /** Global position of the last event appended (or of the already-stored copy on an idempotent retry). */
  position: bigint;
  /** True when every event was already stored (an idempotent retry): nothing was written. */
  duplicate?: boolean;
}

export interface ReadStreamOptions {
  /** Forwards: the first revision returned. Backwards: the newest revision returned. Default: start / end. */
  fromRevision?: bigint;
  /** At most this many events (a bounded read: per-message work never reads a whole stream). */
  maxCount?: number;
  /** Default 'forwards'. Backwards returns the newest events first. */
  direction?: 'forwards' | 'backwards';
}

export interface EventFilter {
  streamPrefixes?: string[];
  eventTypes?: string[];
}

export interface ReadAllOptions {
  /** Exclusive: only events with position > after. Omitted = from the beginning. */
  after?: bigint | null;
  maxCount?: number;
  filter?: EventFilter;
}

export interface Subscription {
  stop(): Promise<void>;
}

export interface SubscribeOptions {
  after?: bigint | null;
  filter?: EventFilter;
  /** Upper bound on events per handler call. */
  batchSize?: number;
  /** Called when the subscription fails for good (after the adapter's own retries). */
  onError?: (err: unknown) => void;
}

export interface EventStore {
  /**
   * Appends atomically. Throws WrongExpectedRevisionError on a mismatch.
   *
   * What every engine keeps of event ids, and no more: an append retried at the same exact expected revision
   * (or 'no_stream') with the same ids, which the first attempt stored, stores nothing and returns the
   * original result (`duplicate: true`). Anything else may store the same ids again: EventStoreDB does so
   * when the repeat comes at the stream's current revision, or with 'any' / 'stream_exists' once its
   * recent-ids cache has moved on, and nothing is unique across streams. So an effect that must happen once
   * (a charge, a send, a release of quota) is decided on its stream's state, or guarded by a stream of its
   * own appended with 'no_stream'; never left to a repeated id. A strict engine (SQLite) refuses a repeated id
   * anywhere (EventIdConflictError): callers treat that as the repeat it is.
   */
  append(stream: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult>;
  /** Events of one stream in revision order (newest first when backwards); [] when the stream does not exist. */
  readStream(stream: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;
  /** Events of all streams in commit order. */
  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]>;
  /** Catch up from `after`, then keep delivering new events, in order, each once, in batches. */
  subscribe(options: SubscribeOptions, handler: (events: RecordedEvent[]) => Promise<void>): Subscription;
  /** Position of the newest event, null when empty. */
  headPosition(): Promise<bigint | null>;
  close(): Promise<void>;
}

export function matchesFilter(event: { stream: string; type: string }, filter?: EventFilter): boolean {
  if (!filter) return true;
  if (filter.eventTypes && !filter.eventTypes.includes(event.type)) return false;
  if (filter.streamPrefixes && !filter.streamPrefixes.some((p) => event.stream.startsWith(p))) return false;
  return true;
}
