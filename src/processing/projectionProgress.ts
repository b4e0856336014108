import type { EventStore } from '../ports/eventStore.js';
import type { Logger } from '../ports/logger.js';
import type { ReadStore } from '../ports/readStore.js';
import type { ProjectionRunner } from './projectionRunner.js';

/** The read store key under which processors record how far every projection has caught up. */
const PROGRESS_KEY = 'projections:caught-up';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Processor side: records, whenever the projections have caught up with a newer head, that position in the
 * read store, so API instances in other processes can wait for their own writes (read-your-writes).
 */
export function publishProjectionProgress(options: { eventStore: EventStore; readStore: ReadStore; projections: ProjectionRunner; logger: Logger; pollMs?: number }) {
  const { eventStore, readStore, projections, logger } = options;
  let stopped = false;
  let published: bigint | null = null;
  const done = (async () => {
    while (!stopped) {
      try {
        const head = await eventStore.headPosition();
        if (head !== null && (published === null || head > published)) {
          // Patient: publishing progress is no reason to cut the projections' gathering window short.
          await projections.waitForPosition(head, 10_000, { patient: true });
          await readStore.saveReactorCheckpoint(PROGRESS_KEY, head);
          published = head;
        }
      } catch (err) {
        if (!stopped) logger.warn({ err }, 'projection progress not published; retrying');
      }
      await sleep(options.pollMs ?? 20);
    }
  })();
  return {
    async stop() {
      stopped = true;
      await done;
    },
  };
}

/** API side without an in-process processor: waits until a processor recorded the position as projected. */
export function remoteProjectionWaiter(readStore: ReadStore, pollMs = 15) {
  return {
    async waitForPosition(position: bigint, timeoutMs = 5000): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const reached = await readStore.reactorCheckpoint(PROGRESS_KEY);
        if (reached !== null && reached >= position) return;
        if (Date.now() >= deadline) throw new Error(`projections did not reach position ${position} within ${timeoutMs} ms (is a processor running?)`);
        await sleep(pollMs);
      }
    },
  };
}
