import type { EventStore } from '../ports/eventStore.js';
import { CorruptEventError, WrongExpectedRevisionError } from '../ports/errors.js';

/**
 * Readiness of the event store for writing. Reading the head position (what /readyz did alone) stays
 * green on a full disk, so webhooks got 500s while the load balancer kept sending them here. Instead:
 * every append that fails for a reason of the store (disk full, I/O error, lock timeout, closed) marks the
 * store not writable, and only a successful write probe marks it writable again (a later small append may
 * still fit where a big one did not). The probe never appends a domain event. An adapter without a probe is
 * not tracked: waiting for "a later append succeeded" could keep an instance out of the load balancer for
 * good, since a not-ready instance gets no webhooks to append.
 */

export interface WriteHealthOptions {
  /** Throws when the store cannot write now; must store nothing a reader can see. */
  probe: () => void | Promise<void>;
  /** A probe result is reused this long, so a flood of /readyz requests costs one probe per interval. */
  probeIntervalMs?: number;
  now?: () => number;
}

interface Tracker {
  failedSince: number | null;
  lastProbe: { at: number; ok: boolean } | null;
  options: WriteHealthOptions;
}

const trackers = new WeakMap<EventStore, Tracker>();

/** Errors that concern one append only (a conflict, an invalid event), never the store's ability to write. */
function isAppendLocal(err: unknown): boolean {
  if (err instanceof WrongExpectedRevisionError || err instanceof CorruptEventError || err instanceof TypeError) return true;
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_CONSTRAINT');
}

/** Wraps `store` so its appends are watched; `eventStoreReady` then answers for the returned store. */
export function trackWriteHealth(store: EventStore, options: WriteHealthOptions): EventStore {
  const tracker: Tracker = { failedSince: null, lastProbe: null, options };
  const now = options.now ?? Date.now;
  const tracked: EventStore = {
    append: async (stream, events, expected) => {
      try {
        return await store.append(stream, events, expected);
      } catch (err) {
        if (!isAppendLocal(err) && tracker.failedSince === null) {
          tracker.failedSince = now();
          tracker.lastProbe = null;
        }
        throw err;
      }
    },
    readStream: (stream, opts) => store.readStream(stream, opts),
    readAll: (opts) => store.readAll(opts),
    subscribe: (opts, handler) => store.subscribe(opts, handler),
    headPosition: () => store.headPosition(),
    close: () => store.close(),
  };
  trackers.set(tracked, tracker);
  return tracked;
}

/**
 * True when the store answers reads and, if a write failed since it last proved writable, a write probe
 * now succeeds. A store not wrapped by trackWriteHealth is judged by a read alone.
 */
export async function eventStoreReady(store: EventStore): Promise<boolean> {
  const readable = await store.headPosition().then(
    () => true,
    () => false,
  );
  const tracker = trackers.get(store);
  if (!readable || !tracker || tracker.failedSince === null) return readable;
  const { probe, probeIntervalMs = 1000 } = tracker.options;
  const now = (tracker.options.now ?? Date.now)();
  if (tracker.lastProbe && now - tracker.lastProbe.at < probeIntervalMs) return tracker.lastProbe.ok;
  let ok: boolean;
  try {
    await probe();
    ok = true;
  } catch {
    ok = false;
  }
  tracker.lastProbe = { at: now, ok };
  if (ok) {
    tracker.failedSince = null;
    tracker.lastProbe = null;
  }
  return ok;
}
