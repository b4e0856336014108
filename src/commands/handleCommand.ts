import { randomUUID } from 'node:crypto';
import type { Decider, DomainEvent } from '../domain/decider.js';
import type { EventMetadata, EventStore, ExpectedRevision, NewEvent, RecordedEvent } from '../ports/eventStore.js';
import { EventIdConflictError, WrongExpectedRevisionError } from '../ports/errors.js';
import { activeTraceparent } from '../ports/tracing.js';

export interface CommandResult<E extends DomainEvent, S> {
  /** Events this command appended (empty when the decision yielded none, or when they were already stored). */
  events: E[];
  /** State after the new events. */
  state: S;
  /** Stream revision after the command; -1n for a stream that still does not exist. */
  revision: bigint;
  /** Global position of the last appended event (of its batch), null when nothing was appended. */
  position: bigint | null;
  /** True when the decided events carried deterministic ids that were already stored: a redelivery. */
  duplicate?: boolean;
  /** True when the `alongside` events were appended with the decision's. */
  alongside?: boolean;
}

export interface HandleCommandOptions {
  metadata?: EventMetadata;
  /** Attempts after a concurrency conflict (another process wrote the stream) before giving up. */
  maxRetries?: number;
  /**
   * Events recorded with the decision's, in the same append, when it decided any (e.g. the log entry of the
   * webhook delivery that brought a message: one commit per delivery). They must fold to the same state.
   */
  alongside?: (decided: DomainEvent[]) => DomainEvent[];
}

type AnyDecider = Decider<unknown, DomainEvent, unknown>;

interface Queued {
  decider: AnyDecider;
  command: unknown;
  options: HandleCommandOptions;
  resolve(result: CommandResult<DomainEvent, unknown>): void;
  reject(err: unknown): void;
}

/** Commands of one batch share one decide-and-append: a hot stream costs one append per batch, not per command. */
const MAX_BATCH = 64;

/**
 * read stream → fold → decide → append with the revision the decision was made on.
 *
 * Inside one process, commands on one stream are queued and run one batch at a time: every command waiting
 * is decided in arrival order on the state its predecessors left, and their events go in one append. So a
 * hot conversation never spins in conflict retries (32 concurrent webhooks to one conversation cost a few
 * appends, not 32² attempts). A writer in another process still makes the append conflict; then the whole
 * batch is re-decided on the fresh stream, a bounded number of times, with jitter.
 */
export function handleCommand<C, E extends DomainEvent, S>(
  store: EventStore,
  stream: string,
  decider: Decider<C, E, S>,
  command: C,
  options: HandleCommandOptions = {},
): Promise<CommandResult<E, S>> {
  // Taken here, in the caller's context: the batch runs in whichever caller's context started the drain.
  const traceparent = options.metadata?.traceparent ? undefined : activeTraceparent();
  const withTrace = traceparent ? { ...options, metadata: { ...options.metadata, traceparent } } : options;
  return new Promise((resolve, reject) => {
    const queue = queueOf(store, stream);
    queue.items.push({ decider: decider as unknown as AnyDecider, command, options: withTrace, resolve: resolve as Queued['resolve'], reject });
    if (!queue.running) void drain(store, stream, queue);
  });
}

interface StreamQueue {
  items: Queued[];
  running: boolean;
}

const queues = new WeakMap<EventStore, Map<string, StreamQueue>>();

function queueOf(store: EventStore, stream: string): StreamQueue {
  let byStream = queues.get(store);
  if (!byStream) queues.set(store, (byStream = new Map()));
  let queue = byStream.get(stream);
  if (!queue) byStream.set(stream, (queue = { items: [], running: false }));
  return queue;
}

async function drain(store: EventStore, stream: string, queue: StreamQueue): Promise<void> {
  queue.running = true;
  try {
    while (queue.items.length > 0) {
      // A batch shares one state: only commands folded by the same evolve (the same aggregate) join it.
      const evolve = queue.items[0]!.decider.evolve;
      let n = 1;
      while (n < queue.items.length && n < MAX_BATCH && queue.items[n]!.decider.evolve === evolve) n++;
      const batch = queue.items.splice(0, n);
      try {
        await runBatch(store, stream, batch);
      } catch (err) {
        for (const item of batch) item.reject(err);
      }
    }
  } finally {
    queue.running = false;
    if (queue.items.length === 0) queues.get(store)?.delete(stream);
    else void drain(store, stream, queue); // a command queued while the last batch settled
  }
}

type Decided = { ok: true; item: Queued; events: DomainEvent[]; extra: DomainEvent[]; state: unknown } | { ok: false; item: Queued; error: unknown };

async function runBatch(store: EventStore, stream: string, batch: Queued[]): Promise<void> {
  const maxRetries = Math.max(...batch.map((b) => b.options.maxRetries ?? 5));
  const decider = batch[0]!.decider;
  for (let attempt = 0; ; attempt++) {
    const { state, revision } = await loadState(store, stream, decider);
    let current = state;
    const decided: Decided[] = batch.map((item): Decided => {
      try {
        const events = item.decider.decide(item.command, current).map((e) => ({ ...e, id: e.id ?? randomUUID() }));
        const extra = events.length > 0 && item.options.alongside ? item.options.alongside(events).map((e) => ({ ...e, id: e.id ?? randomUUID() })) : [];
        current = [...events, ...extra].reduce(item.decider.evolve, current);
        return { ok: true as const, item, events, extra, state: current };
      } catch (error) {
        return { ok: false as const, item, error };
      }
    });
    const toAppend: NewEvent[] = [];
    for (const d of decided) {
      if (d.ok) for (const e of [...d.events, ...d.extra]) toAppend.push({ id: e.id!, type: e.type, data: e.data, metadata: d.item.options.metadata });
    }
    if (toAppend.length === 0) {
      settle(decided, revision, null);
      return;
    }
    const expected: ExpectedRevision = revision < 0n ? 'no_stream' : revision;
    try {
      const result = await store.append(stream, toAppend, expected);
      if (result.duplicate) {
        // The very same events were stored by an earlier delivery (perhaps another process): report nothing
        // new, and decide nothing on this attempt's state, which may differ from the stored one.
        return settleDuplicates(store, stream, decided);
      }
      if (result.nextRevision === revision + BigInt(toAppend.length)) remember(store, stream, decider.evolve, result.nextRevision, current);
      settle(decided, revision, result.position);
      return;
    } catch (err) {
      if (err instanceof EventIdConflictError) {
        if (batch.length > 1) return runAlone(store, stream, batch);
        return settleDuplicates(store, stream, decided);
      }
      if (!(err instanceof WrongExpectedRevisionError) || attempt >= maxRetries) throw err;
      await new Promise((r) => setTimeout(r, Math.random() * 5 * (attempt + 1)));
    }
  }
}

/** One command of the batch hit an id already stored: find out which, by running each on its own. */
async function runAlone(store: EventStore, stream: string, batch: Queued[]): Promise<void> {
  for (const item of batch) {
    try {
      await runBatch(store, stream, [item]);
    } catch (err) {
      item.reject(err);
    }
  }
}

function settle(decided: Decided[], before: bigint, position: bigint | null) {
  let revision = before;
  for (const d of decided) {
    if (!d.ok) {
      d.item.reject(d.error);
      continue;
    }
    revision += BigInt(d.events.length + d.extra.length);
    d.item.resolve({ events: d.events, state: d.state, revision, position: d.events.length ? position : null, alongside: d.extra.length > 0 });
  }
}

async function settleDuplicates(store: EventStore, stream: string, decided: Decided[]) {
  forget(store, stream, decided[0]!.item.decider.evolve);
  const { state, revision } = await loadState(store, stream, decided[0]!.item.decider);
  for (const d of decided) {
    if (!d.ok) d.item.reject(d.error);
    else d.item.resolve({ events: [], state, revision, position: null, duplicate: true });
  }
}

export const toDomainEvent = <E extends DomainEvent>(e: RecordedEvent): E => ({ type: e.type, data: e.data, id: e.id }) as E;

/**
 * The state of each stream folded so far, per store and decider, so a command or a worker reads only the
 * events appended since (a conversation of years is not replayed from its start for every message). Always
 * completed from the store, so other writers' events are never missed; bounded, least recently used first out.
 */
const MAX_CACHED_STREAMS = 10_000;
type Cached = { revision: bigint; state: unknown };
const stateCache = new WeakMap<EventStore, WeakMap<object, Map<string, Cached>>>();

function cacheOf(store: EventStore, evolve: object): Map<string, Cached> {
  let byDecider = stateCache.get(store);
  if (!byDecider) stateCache.set(store, (byDecider = new WeakMap()));
  let streams = byDecider.get(evolve);
  if (!streams) byDecider.set(evolve, (streams = new Map()));
  return streams;
}

function remember(store: EventStore, stream: string, evolve: object, revision: bigint, state: unknown) {
  const cache = cacheOf(store, evolve);
  const known = cache.get(stream);
  // A slower reader must not put back an older state than one already cached.
  if (known && known.revision > revision) return;
  cache.delete(stream);
  cache.set(stream, { revision, state });
  if (cache.size > MAX_CACHED_STREAMS) cache.delete(cache.keys().next().value!);
}

function forget(store: EventStore, stream: string, evolve: object) {
  cacheOf(store, evolve).delete(stream);
}

/**
 * The state this process last folded for a stream, without reading the store: possibly behind it, so only
 * for facts that never go back (e.g. a conversation that exists keeps existing). Undefined when not cached.
 */
export function cachedState<S>(store: EventStore, stream: string, decider: Pick<Decider<unknown, DomainEvent, S>, 'evolve'>): { state: S; revision: bigint } | undefined {
  return cacheOf(store, decider.evolve).get(stream) as { state: S; revision: bigint } | undefined;
}

/** Events folded per read: a stream's tail is read in pages, so memory per load stays bounded however far behind the cache is. */
const LOAD_PAGE = 512;
/** Loads in flight per store, decider and stream: concurrent loads of one stream run one after another (below). */
const loadsInFlight = new WeakMap<EventStore, WeakMap<object, Map<string, Promise<unknown>>>>();

/**
 * The current state of one stream, for decisions and strongly consistent reads (login, auth checks).
 *
 * Concurrent loads of the same stream run one after another: each then reads only what the one before it left
 * unread, instead of every one of them reading (and holding) the same tail at once. A hot conversation read by
 * thousands of waiting reply jobs cost gigabytes of memory that way.
 */
export async function loadState<E extends DomainEvent, S>(
  store: EventStore,
  stream: string,
  decider: Pick<Decider<unknown, E, S>, 'initialState' | 'evolve'>,
): Promise<{ state: S; revision: bigint }> {
  let byDecider = loadsInFlight.get(store);
  if (!byDecider) loadsInFlight.set(store, (byDecider = new WeakMap()));
  let byStream = byDecider.get(decider.evolve);
  if (!byStream) byDecider.set(decider.evolve, (byStream = new Map()));
  const before = byStream.get(stream);
  const load = (before ?? Promise.resolve()).catch(() => undefined).then(() => foldTail(store, stream, decider));
  byStream.set(stream, load);
  void load.finally(() => {
    if (byStream.get(stream) === load) byStream.delete(stream);
  }).catch(() => undefined);
  return load;
}

async function foldTail<E extends DomainEvent, S>(
  store: EventStore,
  stream: string,
  decider: Pick<Decider<unknown, E, S>, 'initialState' | 'evolve'>,
): Promise<{ state: S; revision: bigint }> {
  const hit = cacheOf(store, decider.evolve).get(stream);
  let state = (hit ? hit.state : decider.initialState) as S;
  let revision = hit?.revision ?? -1n;
  for (;;) {
    const page = await store.readStream(stream, { fromRevision: revision + 1n, maxCount: LOAD_PAGE });
    for (const e of page) state = decider.evolve(state, toDomainEvent<E>(e));
    if (page.length > 0) revision = page.at(-1)!.revision;
    if (page.length < LOAD_PAGE) break;
  }
  if (revision !== (hit?.revision ?? -1n)) remember(store, stream, decider.evolve, revision, state);
  return { state, revision };
}
