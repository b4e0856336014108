import {
  BACKWARDS,
  END,
  EventStoreDBClient,
  FORWARDS,
  MaxAppendSizeExceededError,
  NO_STREAM,
  START,
  StreamNotFoundError,
  WrongExpectedVersionError,
  eventTypeFilter,
  excludeSystemEvents,
  streamNameFilter,
  type AllStreamResolvedEvent,
  type AllStreamSubscription,
  type EventData,
  type Filter,
  type JSONType,
  type Position,
  type ReadPosition,
  type ResolvedEvent,
} from '@eventstore/db-client';
import {
  matchesFilter,
  type AppendResult,
  type EventFilter,
  type EventMetadata,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  type SubscribeOptions,
  type Subscription,
} from '../../ports/eventStore.js';
import { DomainError } from '../../domain/errors.js';
import { WrongExpectedRevisionError } from '../../ports/errors.js';
import { silentLogger, type Logger } from '../../ports/logger.js';
import { checkExpectedRevision, findIdempotentRetry } from '../eventStoreSupport.js';

export interface EsdbEventStoreOptions {
  logger?: Logger;
  /** Consecutive failed (re)subscriptions, without an event delivered in between, before giving up. Default 10. */
  maxResubscribeAttempts?: number;
  /** Events per page when reading $all (readAll filters on the client: the Node client reads $all unfiltered). */
  readPageSize?: number;
}

/**
 * EventStoreDB adapter (@eventstore/db-client 6, EventStoreDB ≥ 22.6 so stream reads carry log positions).
 *
 * - Our stream names are EventStoreDB stream names, as-is. Data and metadata are JSON.
 * - position = the event's commit position in $all. Since v20 every event of an append is its own implicitly
 *   committed record, so commit positions are distinct per event and increase in commit order. Reading
 *   "after X" starts at {commit: X, prepare: X} (inclusive on the server) and drops events with commit ≤ X.
 * - Expected revisions map to NO_STREAM / STREAM_EXISTS / ANY / bigint. The server is idempotent for a retry
 *   with the original expected revision (and, best effort, for ANY): it stores nothing and answers success with
 *   the original revision and position. To report that as `duplicate: true`, every append first reads the
 *   stream's last revision (one event, backwards): a new append always ends past it, a recognised retry never
 *   does. (A retry racing its own original, which commits between that read and the retry, reads as new.)
 *   On a conflict the stream is read and a retry of events already stored in it answers with the original
 *   result, as the port requires.
 *   Limits: ids are not unique across streams (the server keeps no such index), and events re-appended with
 *   the stream's *current* revision although already stored in it are stored again (the server only checks
 *   ids at the expected position). Effects that must happen once get a guard of their own (a charge's
 *   `charge-<replyId>` stream), never this.
 * - System events ($-prefixed types or streams) are never returned.
 * - subscribe = subscribeToAll with a server-side filter, resubscribing from the last delivered position
 *   with exponential backoff (100 ms doubling, capped at 5 s) when the subscription drops.
 */
export class EsdbEventStore implements EventStore {
  private readonly logger: Logger;
  private readonly maxResubscribeAttempts: number;
  private readonly pageSize: number;
  private readonly subscriptions = new Set<Subscription>();

  constructor(
    private readonly client: EventStoreDBClient,
    options: EsdbEventStoreOptions = {},
  ) {
    this.logger = options.logger ?? silentLogger;
    this.maxResubscribeAttempts = options.maxResubscribeAttempts ?? 10;
    this.pageSize = Math.max(2, options.readPageSize ?? 1000);
  }

  async append(stream: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    if (events.length === 0) return this.appendNothing(stream, expected);
    // A retry the server recognises is answered like the original append: success, the original revision and
    // (since 20.6) the original position. Only the stream's revision before the call tells the two apart.
    const before = await this.lastRevision(stream);
    try {
      const result = await this.client.appendToStream(stream, events.map(toEventData), {
        expectedRevision: expected === 'no_stream' ? NO_STREAM : expected,
      });
      if (result.nextExpectedRevision <= before) return await this.storedAlready(stream, events, result.nextExpectedRevision);
      if (result.position && isRealPosition(result.position.commit)) {
        return { nextRevision: result.nextExpectedRevision, position: result.position.commit };
      }
      return { nextRevision: result.nextExpectedRevision, position: await this.positionOf(stream, result.nextExpectedRevision) };
    } catch (err) {
      if (err instanceof MaxAppendSizeExceededError) throw this.appendTooLarge(stream, err);
      if (!(err instanceof WrongExpectedVersionError)) throw err;
      const retry = findIdempotentRetry(await this.eventsAt(stream, expected, events.length), events);
      if (retry) return retry;
      throw new WrongExpectedRevisionError(stream, String(expected), String(err.actualVersion));
    }
  }

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const out: RecordedEvent[] = [];
    if (options.maxCount === 0) return out;
    const backwards = options.direction === 'backwards';
    const from = options.fromRevision;
    try {
      const read = this.client.readStream(stream, {
        fromRevision: backwards ? (from === undefined ? END : from) : from !== undefined && from > 0n ? from : START,
        direction: backwards ? BACKWARDS : FORWARDS,
        ...(options.maxCount !== undefined ? { maxCount: BigInt(options.maxCount) } : {}),
      });
      for await (const resolved of read) {
        const recorded = toRecorded(resolved);
        if (recorded) out.push(recorded);
      }
    } catch (err) {
      if (err instanceof StreamNotFoundError) return [];
      throw err;
    }
    return out;
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const { maxCount, filter } = options;
    if (maxCount === 0 || filter?.streamPrefixes?.length === 0 || filter?.eventTypes?.length === 0) return [];
    const out: RecordedEvent[] = [];
    let after = options.after ?? -1n;
    let from: ReadPosition = after >= 0n ? { commit: after, prepare: after } : START;
    for (;;) {
      const page: AllStreamResolvedEvent[] = await collect(
        this.client.readAll({ fromPosition: from, maxCount: this.pageSize, direction: FORWARDS }),
      );
      let last: Position | null = null;
      for (const resolved of page) {
        const position = resolved.event?.position;
        if (!position || position.commit <= after) continue; // the page start is inclusive, `after` is not
        last = position;
        const recorded = toUserEvent(resolved);
        if (!recorded || !matchesFilter(recorded, filter)) continue;
        out.push(recorded);
        if (maxCount !== undefined && out.length >= maxCount) return out;
      }
      if (page.length < this.pageSize || !last) return out;
      after = last.commit;
      from = last;
    }
  }

  subscribe(options: SubscribeOptions, handler: (events: RecordedEvent[]) => Promise<void>): Subscription {
    const batchSize = Math.max(1, options.batchSize ?? 500);
    const filter = options.filter;
    const neverMatches = filter?.streamPrefixes?.length === 0 || filter?.eventTypes?.length === 0;
    let lastDelivered = options.after ?? -1n;
    let resumeFrom: ReadPosition = lastDelivered >= 0n ? { commit: lastDelivered, prepare: lastDelivered } : START;
    let stopped = false;
    let current: AllStreamSubscription | null = null;
    let wake: (() => void) | null = null;

    const loop = (async () => {
      let failures = 0;
      while (!stopped && !neverMatches) {
        const sub = this.client.subscribeToAll({ fromPosition: resumeFrom, filter: serverFilter(filter) });
        current = sub;
        try {
          let batch: RecordedEvent[] = [];
          let batchEnd: Position | null = null;
          for await (const resolved of sub as AsyncIterable<AllStreamResolvedEvent>) {
            if (stopped) break;
            const position = resolved.event?.position;
            if (position && position.commit > lastDelivered && !(batchEnd && position.commit <= batchEnd.commit)) {
              const recorded = toUserEvent(resolved);
              if (recorded && matchesFilter(recorded, filter)) {
                batch.push(recorded);
                batchEnd = position;
              }
            }
            // Deliver when the batch is full or nothing more is buffered right now.
            if (batch.length > 0 && (batch.length >= batchSize || sub.readableLength === 0)) {
              try {
                await handler(batch);
              } catch (err) {
                throw new HandlerFailed(err);
              }
              lastDelivered = batchEnd!.commit;
              resumeFrom = batchEnd!;
              failures = 0;
              batch = [];
              batchEnd = null;
            }
          }
          if (!stopped) throw new Error('subscription to $all ended by the server');
        } catch (err) {
          if (stopped) break;
          if (err instanceof HandlerFailed) {
            this.giveUp(options, err.cause, lastDelivered);
            break;
          }
          failures++;
          if (failures > this.maxResubscribeAttempts) {
            this.giveUp(options, err, lastDelivered);
            break;
          }
          this.logger.warn(
            { err, attempt: failures, after: String(lastDelivered) },
            'event store subscription dropped; resubscribing from the last delivered position',
          );
        } finally {
          current = null;
          await sub.unsubscribe().catch(() => undefined);
          sub.destroy();
        }
        if (stopped) break;
        // Exponential backoff before resubscribing: 100 ms, 200 ms, … capped at 5 s.
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.min(5000, 100 * 2 ** (failures - 1)));
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = null;
      }
    })();

    const subscription: Subscription = {
      stop: async () => {
        stopped = true;
        this.subscriptions.delete(subscription);
        (wake as (() => void) | null)?.();
        const sub = current as AllStreamSubscription | null;
        if (sub) {
          await sub.unsubscribe().catch(() => undefined);
          sub.destroy();
        }
        await loop;
      },
    };
    this.subscriptions.add(subscription);
    return subscription;
  }

  async headPosition(): Promise<bigint | null> {
    let from: ReadPosition = END;
    let seen: bigint | null = null;
    for (;;) {
      const page: AllStreamResolvedEvent[] = await collect(
        this.client.readAll({ fromPosition: from, maxCount: this.pageSize, direction: BACKWARDS }),
      );
      let last: Position | null = null;
      for (const resolved of page) {
        const position = resolved.event?.position;
        if (!position || (seen !== null && position.commit >= seen)) continue;
        last = position;
        if (toUserEvent(resolved)) return position.commit;
      }
      if (page.length < this.pageSize || !last) return null;
      seen = last.commit;
      from = last;
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.subscriptions].map((s) => s.stop()));
    await this.client.dispose();
  }

  /**
   * On a conflict, the events a retry of this append would find: where the original append put them (after the
   * expected revision; the stream's start for "no stream"), else the stream's last ones. Never the whole stream:
   * a conversation's stream lives for years.
   */
  private async eventsAt(stream: string, expected: ExpectedRevision, count: number): Promise<RecordedEvent[]> {
    if (typeof expected === 'bigint') return this.readStream(stream, { fromRevision: expected + 1n, maxCount: count });
    if (expected === 'no_stream') return this.readStream(stream, { fromRevision: 0n, maxCount: count });
    return (await this.readStream(stream, { direction: 'backwards', maxCount: count })).reverse();
  }

  /**
   * The server refuses an append over its maximum append size (EventStoreDB's `MaxAppendSize`, 1 MiB by default;
   * a knowledge document of up to 1 MiB is one header and 64 KiB content parts in one append, so the whole can
   * exceed it). Nothing was written: the request answers 413 instead of a 500, and the log names the setting to
   * raise (docs/operations.md).
   */
  private appendTooLarge(stream: string, err: MaxAppendSizeExceededError): DomainError {
    const limit = Number.isSafeInteger(err.maxAppendSize) && err.maxAppendSize > 0 ? err.maxAppendSize : null;
    this.logger.warn({ stream, maxAppendSize: limit }, 'append refused: over the EventStoreDB MaxAppendSize (raise it, see docs/operations.md); nothing was written');
    return new DomainError(
      'PAYLOAD_TOO_LARGE',
      `Too large to store at once: the event store takes at most ${limit === null ? 'its maximum append size' : `${limit} bytes`} per write; nothing was stored`,
    );
  }

  private giveUp(options: SubscribeOptions, err: unknown, after: bigint): void {
    this.logger.error({ err, after: String(after) }, 'event store subscription stopped; later events were not delivered');
    options.onError?.(err);
  }

  /** Empty appends never reach the server: the expected revision is checked against the stream's last event. */
  private async appendNothing(stream: string, expected: ExpectedRevision): Promise<AppendResult> {
    let current: bigint | null = null;
    try {
      const last = await collect(this.client.readStream(stream, { fromRevision: END, direction: BACKWARDS, maxCount: 1 }));
      current = last[0]?.event?.revision ?? null;
    } catch (err) {
      if (!(err instanceof StreamNotFoundError)) throw err;
    }
    checkExpectedRevision(stream, expected, current);
    return { nextRevision: current ?? -1n, position: (await this.headPosition()) ?? -1n };
  }

  /** The revision of the stream's last event, -1n when it has none: one event read backwards. */
  private async lastRevision(stream: string): Promise<bigint> {
    const [last] = await this.readStream(stream, { direction: 'backwards', maxCount: 1 });
    return last?.revision ?? -1n;
  }

  /**
   * The server recognised a retry: it wrote nothing and answered with the revision of the original events, which
   * already ended at or before the stream's revision before the call (a new append always ends past it). The
   * answer is the original append's, from the stored events (a bounded read of exactly those).
   */
  private async storedAlready(stream: string, events: NewEvent[], lastRevision: bigint): Promise<AppendResult> {
    const first = lastRevision - BigInt(events.length - 1);
    const stored = first < 0n ? [] : await this.readStream(stream, { fromRevision: first, maxCount: events.length });
    if (stored.length !== events.length || stored.some((e, i) => e.id !== events[i]!.id)) {
      throw new Error(`stream ${stream}: the server answered an append with revision ${lastRevision}, which does not hold its events`);
    }
    return { nextRevision: lastRevision, position: stored.at(-1)!.position, duplicate: true };
  }

  private async positionOf(stream: string, revision: bigint): Promise<bigint> {
    const found = await this.readStream(stream, { fromRevision: revision });
    const event = found.find((e) => e.revision === revision);
    if (!event) throw new Error(`stream ${stream}: event at revision ${revision} not found after append`);
    return event.position;
  }
}

export function openEsdbEventStore(connectionString: string, options?: EsdbEventStoreOptions): EsdbEventStore {
  return new EsdbEventStore(EventStoreDBClient.connectionString(connectionString), options);
}

class HandlerFailed extends Error {
  constructor(override readonly cause: unknown) {
    super('subscription handler failed');
  }
}

async function collect<T>(read: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of read) out.push(item);
  return out;
}

function serverFilter(filter: EventFilter | undefined): Filter {
  if (filter?.streamPrefixes?.length) return streamNameFilter({ prefixes: filter.streamPrefixes });
  if (filter?.eventTypes?.length) {
    // Exact names: the server's prefix filter would also match longer names.
    return eventTypeFilter({ regex: `^(?:${filter.eventTypes.map(escapeRegex).join('|')})$` });
  }
  return excludeSystemEvents();
}

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function toEventData(e: NewEvent): EventData {
  return {
    id: e.id,
    contentType: 'application/json',
    type: e.type,
    data: (e.data ?? null) as JSONType,
    metadata: (e.metadata ?? {}) as JSONType,
  } as EventData;
}

/** Old servers report 2^64-1 (or nothing) where they have no position. */
const isRealPosition = (p: bigint) => p >= 0n && p < 0xffff_ffff_ffff_ffffn;

function toUserEvent(resolved: AllStreamResolvedEvent): RecordedEvent | null {
  const e = resolved.event;
  if (!e || e.streamId.startsWith('$') || e.type.startsWith('$')) return null;
  return toRecorded(resolved);
}

function toRecorded(resolved: ResolvedEvent | AllStreamResolvedEvent): RecordedEvent | null {
  const e = resolved.event;
  if (!e) return null;
  const commit = e.position?.commit ?? resolved.commitPosition;
  if (commit === undefined || !isRealPosition(commit)) {
    throw new Error(`event ${e.id} in stream ${e.streamId} has no log position (EventStoreDB ≥ 22.6 is required)`);
  }
  return {
    id: e.id,
    stream: e.streamId,
    type: e.type,
    data: e.isJson ? e.data : decodeBinary(e.data as Uint8Array),
    metadata: toMetadata(e.metadata),
    revision: e.revision,
    position: commit,
    createdAt: e.created.toISOString(),
  };
}

function decodeBinary(bytes: Uint8Array): unknown {
  const text = Buffer.from(bytes).toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function toMetadata(metadata: unknown): EventMetadata {
  if (metadata instanceof Uint8Array) {
    const parsed = decodeBinary(metadata);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as EventMetadata) : {};
  }
  return metadata && typeof metadata === 'object' && !Array.isArray(metadata) ? { ...(metadata as EventMetadata) } : {};
}
