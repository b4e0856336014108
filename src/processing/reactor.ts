import type { z } from 'zod';
import type { CommandDeps } from '../commands/deps.js';
import type { Pricing } from '../domain/credits/decider.js';
import type { Bus } from '../ports/bus.js';
import type { EventStore, RecordedEvent } from '../ports/eventStore.js';
import type { Logger } from '../ports/logger.js';
import type { ReadStore } from '../ports/readStore.js';
import type { RecordedEventOf } from '../projections/projection.js';
import { createEventConsumer, type EventConsumer } from './eventConsumer.js';

type Schemas = Record<string, z.ZodType>;

/**
 * The default number of events of a batch reacted to at once, for reactors whose effects are independent and
 * idempotent (jobs by dedupe id, charges by reply id), so a batch's events are reacted to together.
 */
export const REACTOR_CONCURRENCY = 64;

/** What every reactor of a process may use for its effects. */
export interface ReactorContext {
  commands: CommandDeps;
  bus: Bus;
  pricing: Pricing;
  /** The read models, for a reactor that decides on them (automatic assignment). */
  readStore: ReadStore;
  /** Resolves once the read models have applied every event up to `position` (a decision must not see an older state). */
  waitForProjections(position: bigint): Promise<void>;
}

/**
 * An effect of stored events (a bus job, a charge, a command), at least once. `E` is the union of the events it
 * handles: the event store validates every event against its schema when read, so `react` gets typed data.
 */
export interface Reactor<E extends RecordedEvent = RecordedEvent> {
  /** Unique; also the checkpoint key. */
  name: string;
  /** The event types it reacts to; the others only move its checkpoint. */
  eventTypes: E['type'][];
  /** Events of one batch reacted to at once (see ReactorOptions.concurrency). Default 1. */
  concurrency?: number;
  /** See ReactorOptions.checkpointIntervalMs. Default 1000. */
  checkpointIntervalMs?: number;
  /**
   * Builds the reaction for one run of the reactor, with what it may use; state it needs across events (a
   * cache) lives in the closure, for that run only. The reaction must be idempotent: events are redelivered.
   */
  start(ctx: ReactorContext): (event: E) => Promise<void>;
}

/**
 * A reactor over some of `schemas`' event types (inferred from `eventTypes`): its reaction gets those events
 * typed by their schemas, with no cast. Refuses a type the schemas do not define.
 */
export function defineReactor<S extends Schemas, K extends keyof S & string>(
  schemas: S,
  reactor: Reactor<RecordedEventOf<S, K>> & { eventTypes: K[] },
): Reactor {
  for (const type of reactor.eventTypes) {
    if (!(type in schemas)) throw new Error(`reactor ${reactor.name}: no schema for event type ${type}`);
  }
  // The consumer hands it only events of its types, checked against their schemas on read.
  return reactor as unknown as Reactor;
}

export interface StartReactorsOptions {
  eventStore: EventStore;
  readStore: ReadStore;
  consumer: EventConsumer;
  logger: Logger;
  ctx: ReactorContext;
}

/** Starts every reactor of `reactors` on the consumer; stop() stops them in the same order. */
export async function startReactors(reactors: readonly Reactor[], options: StartReactorsOptions): Promise<{ stop(): Promise<void> }> {
  const { eventStore, readStore, consumer, logger, ctx } = options;
  const started: { stop(): Promise<void> }[] = [];
  for (const reactor of reactors) {
    const { name, eventTypes, concurrency, checkpointIntervalMs } = reactor;
    started.push(
      await startReactor({
        name,
        eventStore,
        readStore,
        eventTypes,
        logger: logger.child({ component: 'reactor', reactor: name }),
        react: reactor.start(ctx),
        consumer,
        ...(concurrency !== undefined ? { concurrency } : {}),
        ...(checkpointIntervalMs !== undefined ? { checkpointIntervalMs } : {}),
      }),
    );
  }
  return {
    async stop() {
      for (const r of started) await r.stop();
    },
  };
}

export interface ReactorOptions {
  name: string;
  eventStore: EventStore;
  readStore: ReadStore;
  eventTypes: string[];
  logger: Logger;
  /** Turns one event into its effect (publishing a bus job). Must be idempotent: replays happen. */
  react(event: RecordedEvent): Promise<void>;
  /** The process's shared event consumer; without one the reactor makes its own (and stops it with itself). */
  consumer?: EventConsumer;
  /** Its checkpoint moves over events it does not react to at the latest after this many (and at stop). Default 1000. */
  checkpointEvery?: number;
  /**
   * After handling events, its checkpoint is saved at most this often (and at stop). A crash in between
   * republishes that stretch: every effect is idempotent (jobs by dedupe id, charges by reply id). Saving after
   * every batch made a busy thread wait on the read store's write lock, which the projections hold. Default 1000.
   */
  checkpointIntervalMs?: number;
  /**
   * Events of one batch reacted to at once. Order does not matter for a reactor whose effects are independent
   * and idempotent (jobs the fair scheduler orders anyway, charges by reply id); publishing one at a time
   * bounded a reactor by the bus's round trip (NATS waits for each PubAck). Default 1.
   */
  concurrency?: number;
}

/**
 * Event → bus job, at least once: the checkpoint moves only after the job is published, so a crash
 * republishes (the bus dedupes by event id) and nothing is lost. A failing event is retried (from the event
 * after the last one that succeeded), never skipped, and does not hold back the consumer's other processors.
 */
export async function startReactor(options: ReactorOptions): Promise<{ stop(): Promise<void> }> {
  const { name, readStore, logger } = options;
  const checkpointEvery = options.checkpointEvery ?? 1000;
  const concurrency = Math.max(1, options.concurrency ?? 1);
  const checkpointIntervalMs = options.checkpointIntervalMs ?? 1000;
  let savedAt = 0;
  const consumer = options.consumer ?? createEventConsumer({ eventStore: options.eventStore, logger, batchSize: 100 });
  // The last event whose effect happened (survives a failure in the same process), and what is saved.
  let handled: bigint | null = null;
  let saved: bigint | null = null;
  let unsaved = 0;
  const save = async (position: bigint) => {
    await readStore.saveReactorCheckpoint(name, position);
    saved = position;
    unsaved = 0;
    savedAt = performance.now();
  };

  // Events handled but not saved when traffic stops are saved once the interval has passed: the checkpoint
  // trails what happened by at most checkpointIntervalMs, not until the next event or the stop.
  let lateSave: NodeJS.Timeout | null = null;
  const saveLater = () => {
    if (lateSave) return;
    lateSave = setTimeout(() => {
      lateSave = null;
      if (handled !== null && handled !== saved) {
        save(handled).catch((err: unknown) => logger.warn({ err, reactor: name }, 'could not save the reactor checkpoint'));
      }
    }, Math.max(0, savedAt + checkpointIntervalMs - performance.now()));
    lateSave.unref();
  };

  const attached = consumer.attach({
    name: `reactor:${name}`,
    filter: { eventTypes: options.eventTypes },
    resumeAfter: async () => {
      if (handled === null) handled = saved = await readStore.reactorCheckpoint(name);
      return handled;
    },
    handle: async (events, through, scanned) => {
      if (concurrency === 1) {
        for (const event of events) {
          await options.react(event);
          handled = event.position;
        }
      } else {
        for (let i = 0; i < events.length; i += concurrency) await Promise.all(events.slice(i, i + concurrency).map((event) => options.react(event)));
      }
      handled = through;
      unsaved += scanned;
      if (unsaved >= checkpointEvery || (events.length > 0 && performance.now() - savedAt >= checkpointIntervalMs)) await save(through);
      else if (events.length > 0) saveLater();
    },
    retryDelay: (err, attempt) => {
      const delay = Math.min(10_000, 100 * 2 ** (attempt - 1));
      logger.error({ err, reactor: name, position: handled === null ? null : String(handled), retryInMs: delay }, 'reactor could not handle an event; retrying');
      return delay;
    },
  });
  return {
    async stop() {
      await attached.detach();
      if (lateSave) clearTimeout(lateSave);
      if (!options.consumer) await consumer.stop();
      if (handled !== null && handled !== saved) {
        await save(handled).catch((err: unknown) => logger.warn({ err, reactor: name }, 'could not save the reactor checkpoint at stop'));
      }
    },
  };
}
