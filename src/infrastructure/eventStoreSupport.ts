import type { EventEmitter } from 'node:events';
import type {
  AppendResult,
  ReadStreamOptions,
  EventStore,
  ExpectedRevision,
  NewEvent,
  RecordedEvent,
  SubscribeOptions,
  Subscription,
} from '../ports/eventStore.js';
import { WrongExpectedRevisionError } from '../ports/errors.js';

/** Shared by the adapters that implement revision checks themselves (memory, SQLite). */
export function checkExpectedRevision(stream: string, expected: ExpectedRevision, current: bigint | null): void {
  const actual = current === null ? 'no_stream' : String(current);
  const ok =
    expected === 'any' ||
    (expected === 'no_stream' && current === null) ||
    (expected === 'stream_exists' && current !== null) ||
    (typeof expected === 'bigint' && current === expected);
  if (!ok) throw new WrongExpectedRevisionError(stream, String(expected), actual);
}

/**
 * A retried append (same event ids, in order, already at the end or anywhere in the stream) is a no-op
 * that answers like the original append did. Returns null when the events are new.
 */
export function findIdempotentRetry(existing: RecordedEvent[], events: NewEvent[]): AppendResult | null {
  if (events.length === 0) return null;
  const start = existing.findIndex((e) => e.id === events[0]!.id);
  if (start < 0) return null;
  for (let i = 0; i < events.length; i++) {
    if (existing[start + i]?.id !== events[i]!.id) return null;
  }
  const last = existing[start + events.length - 1]!;
  return { nextRevision: last.revision, position: last.position, duplicate: true };
}

/** readStream's window over a stream held as an array indexed by revision (memory adapter, tests). */
export function streamWindow<T>(events: readonly T[], options: ReadStreamOptions = {}): T[] {
  const max = options.maxCount ?? Number.POSITIVE_INFINITY;
  if (max <= 0) return [];
  if (options.direction === 'backwards') {
    const newest = options.fromRevision === undefined ? events.length - 1 : Math.min(Number(options.fromRevision), events.length - 1);
    const out: T[] = [];
    for (let i = newest; i >= 0 && out.length < max; i--) out.push(events[i]!);
    return out;
  }
  const from = Number(options.fromRevision ?? 0n);
  return events.slice(from, Number.isFinite(max) ? from + max : undefined);
}

/**
 * How a subscription over a server rides out the server's restarts: a read failing with an error the adapter
 * calls transient (a lost connection) is tried again, after a growing pause, until reads have failed for
 * `forMs` without one success; only then does the subscription fail for good (onError).
 */
export interface ReadRetry {
  isTransient(err: unknown): boolean;
  forMs: number;
}

const READ_RETRY_MS = { first: 50, max: 2000 };

/**
 * Catch-up subscription over readAll: drains in batches, then waits for an in-process "appended" signal
 * or a poll tick (another process may append to the same SQLite file).
 */
export function pollingSubscription(
  store: Pick<EventStore, 'readAll' | 'headPosition'>,
  appended: EventEmitter,
  options: SubscribeOptions,
  handler: (events: RecordedEvent[]) => Promise<void>,
  pollMs = 250,
  retry?: ReadRetry,
): Subscription {
  let stopped = false;
  let wake: (() => void) | null = null;
  // Set by every "appended" signal; cleared before each read. An append that lands between a read that came
  // back empty and the start of the wait would otherwise only be seen at the next poll tick.
  let signaled = false;
  const onAppended = () => {
    signaled = true;
    wake?.();
  };
  appended.on('appended', onAppended);
  let after = options.after ?? null;
  const batchSize = options.batchSize ?? 500;
  const fail = (err: unknown) => {
    if (options.onError) options.onError(err);
    // Never lose a subscription silently: without an onError the failure still leaves a line.
    else console.error('event store subscription stopped after an error; events after position', String(after), 'were not delivered:', err);
  };

  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    }).then(() => {
      wake = null;
    });
  /** When the current run of failed reads began, and the pause before the next attempt. */
  let failing = null as { since: number; delayMs: number } | null;

  const loop = (async () => {
    while (!stopped) {
      signaled = false;
      let batch: RecordedEvent[];
      // With a filter, a read that matches little would leave the cursor behind and rescan the same
      // non-matching events after every append: the head read first bounds what this read has seen.
      let head: bigint | null = null;
      try {
        if (options.filter) head = await store.headPosition();
        batch = await store.readAll({ after, maxCount: batchSize, filter: options.filter });
        failing = null;
      } catch (err) {
        if (stopped) return;
        const now = performance.now();
        const since = failing?.since ?? now;
        if (retry?.isTransient(err) && now - since < retry.forMs) {
          const delayMs = Math.min(READ_RETRY_MS.max, (failing?.delayMs ?? READ_RETRY_MS.first / 2) * 2);
          failing = { since, delayMs };
          await pause(delayMs);
          continue;
        }
        fail(err);
        return;
      }
      if (stopped) return;
      const scannedTo = batch.length < batchSize && head !== null ? head : null;
      if (batch.length > 0) {
        try {
          await handler(batch);
        } catch (err) {
          fail(err);
          return;
        }
        after = batch.at(-1)!.position;
        if (scannedTo !== null && scannedTo > after) after = scannedTo;
        continue;
      }
      if (scannedTo !== null && (after === null || scannedTo > after)) after = scannedTo;
      if (signaled) continue;
      await pause(pollMs);
    }
  })();

  return {
    async stop() {
      stopped = true;
      wake?.();
      appended.off('appended', onAppended);
      await loop;
    },
  };
}
