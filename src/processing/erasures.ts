import type { EventStore } from '../ports/eventStore.js';
import type { Logger } from '../ports/logger.js';
import type { PersonalDataKeys } from '../ports/personalDataKeys.js';
import type { ReadStore } from '../ports/readStore.js';
import type { Projection } from '../projections/projection.js';
import { rebuildProjections } from './projectionRunner.js';

/** The read store's checkpoint name for "erasures purged through this position". */
export const ERASURE_SWEEP = 'erasure-sweep';

export interface ErasureSweep {
  /** Asks for a sweep (after an erasure); sweeps asked for while one runs are done by one more run. */
  request(): void;
  /** Resolves when no sweep runs or is pending (tests; shutdown). */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Completes erasures (docs/erasure.md): for every CustomerErased after its checkpoint it deletes the customer's
 * keys again (idempotent: an erasure cut short between its event and its key deletion completes here), then
 * rebuilds the read models from the log, where the erased fields now read as erased, and drops the old
 * generation (with its copies of the data: search index, conversation lists, action-call and webhook logs,
 * outbound events not yet delivered). Only then does the checkpoint move, so an erasure interrupted by a
 * restart is swept again at start-up. One rebuild covers every erasure recorded before it began.
 */
export function startErasureSweep(options: {
  eventStore: EventStore;
  readStore: ReadStore;
  keys: PersonalDataKeys;
  projections: readonly Projection[];
  logger: Logger;
  /** Also sweep this often: erasures another process recorded (the retention sweep, on the processor) get purged too. */
  pollMs?: number;
}): ErasureSweep {
  const { eventStore, readStore, keys, logger } = options;
  let running: Promise<void> | null = null;
  let again = false;
  let stopped = false;

  const sweepOnce = async () => {
    const after = await readStore.reactorCheckpoint(ERASURE_SWEEP);
    // Read before the scan: the checkpoint may move this far even when nothing was erased, so the next sweep
    // (and the next start-up) reads only the log written since, never the whole log again.
    const head = await eventStore.headPosition();
    let through: bigint | null = null;
    let from = after;
    for (;;) {
      const batch = await eventStore.readAll({ after: from, maxCount: 500, filter: { eventTypes: ['CustomerErased'] } });
      if (batch.length === 0) break;
      for (const e of batch) await keys.eraseSubject((e.data as { customerId: string }).customerId);
      through = batch[batch.length - 1]!.position;
      from = through;
    }
    const reached = through !== null && (head === null || through > head) ? through : head;
    if (through !== null) {
      const result = await rebuildProjections({ eventStore, readStore, projections: [...options.projections], logger: logger.child({ component: 'erasure-sweep' }) });
      logger.info({ through: String(through), generation: result.generation, durationMs: result.durationMs }, 'erasures swept: keys deleted, read models rebuilt without the erased data');
    }
    if (reached !== null && reached !== after) await readStore.saveReactorCheckpoint(ERASURE_SWEEP, reached);
  };

  const run = (): Promise<void> => {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        try {
          if (!stopped) await sweepOnce();
        } catch (err) {
          logger.error({ err }, 'erasure sweep failed; it runs again on the next erasure or start-up');
        }
      } while (again && !stopped);
    })().finally(() => {
      running = null;
    });
    return running;
  };

  void run(); // at start-up: finishes what a restart interrupted
  // A poll reads only the CustomerErased events written since the checkpoint: cheap when there are none.
  const poll = options.pollMs ? setInterval(() => void run(), options.pollMs) : null;
  poll?.unref();
  return {
    request: () => void run(),
    idle: async () => {
      while (running) await running;
    },
    stop: async () => {
      stopped = true;
      if (poll) clearInterval(poll);
      while (running) await running;
    },
  };
}
