import { randomUUID } from 'node:crypto';
import type { Decider, DomainEvent } from '../domain/decider.js';
import type { EventMetadata, EventStore, ExpectedRevision, RecordedEvent } from '../ports/eventStore.js';
import { WrongExpectedRevisionError } from '../ports/errors.js';

export interface CommandResult<E extends DomainEvent, S> {
  /** Events this command appended (empty when the decision yielded none). */
  events: E[];
  /** State after the new events. */
  state: S;
  /** Stream revision after the command; -1n for a stream that still does not exist. */
  revision: bigint;
  /** Global position of the last appended event, null when nothing was appended. */
  position: bigint | null;
}

export interface HandleCommandOptions {
  metadata?: EventMetadata;
  /** Attempts after a concurrency conflict before giving up with the conflict error. */
  maxRetries?: number;
}

/**
 * read stream → fold → decide → append with the revision the decision was made on. A concurrent writer
 * makes the append fail; the whole decision is re-run on the fresh stream, a bounded number of times.
 */
export async function handleCommand<C, E extends DomainEvent, S>(
  store: EventStore,
  stream: string,
  decider: Decider<C, E, S>,
  command: C,
  options: HandleCommandOptions = {},
): Promise<CommandResult<E, S>> {
  const maxRetries = options.maxRetries ?? 5;
  for (let attempt = 0; ; attempt++) {
    const { state, revision } = await loadState(store, stream, decider);
    const events = decider.decide(command, state);
    if (events.length === 0) return { events, state, revision, position: null };
    const expected: ExpectedRevision = revision < 0n ? 'no_stream' : revision;
    try {
      const result = await store.append(
        stream,
        events.map((e) => ({ id: e.id ?? randomUUID(), type: e.type, data: e.data, metadata: options.metadata })),
        expected,
      );
      const next = events.reduce(decider.evolve, state);
      // Our events sit right after what we read (not an idempotent retry landing elsewhere): remember the state.
      if (result.nextRevision === revision + BigInt(events.length)) remember(store, stream, decider.evolve, result.nextRevision, next);
      return { events, state: next, revision: result.nextRevision, position: result.position };
    } catch (err) {
      if (!(err instanceof WrongExpectedRevisionError) || attempt >= maxRetries) throw err;
      await new Promise((r) => setTimeout(r, Math.random() * 5 * (attempt + 1)));
    }
  }
}

export const toDomainEvent = <E extends DomainEvent>(e: RecordedEvent): E => ({ type: e.type, data: e.data, id: e.id }) as E;

/**
 * The state of each stream folded so far, per store and decider, so a command reads only the events
 * appended since (a long conversation or credits stream is not replayed from its start every time). Always
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
  cache.delete(stream);
  cache.set(stream, { revision, state });
  if (cache.size > MAX_CACHED_STREAMS) cache.delete(cache.keys().next().value!);
}

/** The current state of one stream, for decisions and strongly consistent reads (login, auth checks). */
export async function loadState<E extends DomainEvent, S>(
  store: EventStore,
  stream: string,
  decider: Pick<Decider<unknown, E, S>, 'initialState' | 'evolve'>,
): Promise<{ state: S; revision: bigint }> {
  const hit = cacheOf(store, decider.evolve).get(stream);
  const tail = await store.readStream(stream, hit ? { fromRevision: hit.revision + 1n } : undefined);
  let state = (hit ? hit.state : decider.initialState) as S;
  for (const e of tail) state = decider.evolve(state, toDomainEvent<E>(e));
  const revision = tail.length > 0 ? tail.at(-1)!.revision : (hit?.revision ?? -1n);
  if (tail.length > 0) remember(store, stream, decider.evolve, revision, state);
  return { state, revision };
}
