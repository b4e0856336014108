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
    const history = await store.readStream(stream);
    const state = history.reduce((s, e) => decider.evolve(s, toDomainEvent<E>(e)), decider.initialState);
    const revision = history.length === 0 ? -1n : history.at(-1)!.revision;
    const events = decider.decide(command, state);
    if (events.length === 0) return { events, state, revision, position: null };
    const expected: ExpectedRevision = revision < 0n ? 'no_stream' : revision;
    try {
      const result = await store.append(
        stream,
        events.map((e) => ({ id: e.id ?? randomUUID(), type: e.type, data: e.data, metadata: options.metadata })),
        expected,
      );
      return {
        events,
        state: events.reduce(decider.evolve, state),
        revision: result.nextRevision,
        position: result.position,
      };
    } catch (err) {
      if (!(err instanceof WrongExpectedRevisionError) || attempt >= maxRetries) throw err;
      await new Promise((r) => setTimeout(r, Math.random() * 5 * (attempt + 1)));
    }
  }
}

export const toDomainEvent = <E extends DomainEvent>(e: RecordedEvent): E => ({ type: e.type, data: e.data, id: e.id }) as E;

/** The current state of one stream, for decisions and strongly consistent reads (login, auth checks). */
export async function loadState<E extends DomainEvent, S>(
  store: EventStore,
  stream: string,
  decider: Pick<Decider<unknown, E, S>, 'initialState' | 'evolve'>,
): Promise<{ state: S; revision: bigint }> {
  const history = await store.readStream(stream);
  return {
    state: history.reduce((s, e) => decider.evolve(s, toDomainEvent<E>(e)), decider.initialState),
    revision: history.length === 0 ? -1n : history.at(-1)!.revision,
  };
}
