import type { EventStore, RecordedEvent, Subscription } from '../ports/eventStore.js';
import type { Logger } from '../ports/logger.js';
import type { ReadStore } from '../ports/readStore.js';

export interface ReactorOptions {
  name: string;
  eventStore: EventStore;
  readStore: ReadStore;
  eventTypes: string[];
  logger: Logger;
  /** Turns one event into its effect (publishing a bus job). Must be idempotent: replays happen. */
  react(event: RecordedEvent): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Event → bus job, at least once: the checkpoint moves only after the job is published, so a crash
 * republishes (the bus dedupes by event id) and nothing is lost. A failing event is retried, never skipped.
 */
export async function startReactor(options: ReactorOptions): Promise<{ stop(): Promise<void> }> {
  const { name, eventStore, readStore, logger } = options;
  let stopped = false;
  let subscription: Subscription | null = null;
  let restartTimer: NodeJS.Timeout | null = null;

  const start = async (attempt = 0): Promise<void> => {
    if (stopped) return;
    const after = await readStore.reactorCheckpoint(name);
    subscription = eventStore.subscribe(
      {
        after,
        filter: { eventTypes: options.eventTypes },
        batchSize: 100,
        onError: (err) => {
          if (stopped) return;
          const delay = Math.min(30_000, 250 * 2 ** attempt);
          logger.error({ err, reactor: name, retryInMs: delay }, 'reactor subscription failed; restarting from its checkpoint');
          restartTimer = setTimeout(() => void start(attempt + 1).catch((e) => logger.error({ err: e, reactor: name }, 'reactor restart failed')), delay);
        },
      },
      async (events) => {
        for (const event of events) {
          for (let tries = 0; ; tries++) {
            if (stopped) return;
            try {
              await options.react(event);
              break;
            } catch (err) {
              logger.error({ err, reactor: name, stream: event.stream, position: String(event.position) }, 'reactor could not handle an event; retrying');
              await sleep(Math.min(10_000, 100 * 2 ** tries));
            }
          }
        }
        await readStore.saveReactorCheckpoint(name, events.at(-1)!.position);
        attempt = 0;
      },
    );
  };
  await start();
  return {
    async stop() {
      stopped = true;
      if (restartTimer) clearTimeout(restartTimer);
      await subscription?.stop();
    },
  };
}
