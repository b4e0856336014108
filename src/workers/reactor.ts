import type { EventStore, RecordedEvent } from '../ports/eventStore.js';
import type { Logger } from '../ports/logger.js';
import type { ReadStore } from '../ports/readStore.js';
import { createEventConsumer, type EventConsumer } from '../processing/eventConsumer.js';

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
      if (!options.consumer) await consumer.stop();
      if (handled !== null && handled !== saved) {
        await save(handled).catch((err: unknown) => logger.warn({ err, reactor: name }, 'could not save the reactor checkpoint at stop'));
      }
    },
  };
}
