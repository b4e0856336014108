import type { EventStore } from '../ports/eventStore.js';
import type { Logger } from '../ports/logger.js';
import { createEventConsumer, type EventConsumer } from './eventConsumer.js';

/**
 * One reader of the event log per thread for its projections, reactors, knowledge index and live events: each
 * event is read and decoded once. A processor that cannot keep up (customer profiles: one command per new
 * customer) holds the shared reading only briefly, then catches up on its own: the reactors that start replies
 * and sends stay at the head.
 */
export function processorConsumer(eventStore: EventStore, logger: Logger, options: { gatherMs?: number } = {}): EventConsumer {
  // Projections that hold their batch for a gathering window (projectionRunner's gatherMs) hold it on purpose,
  // all together: past 50 ms each would leave the shared reading and read the log on its own.
  const maxHoldMs = 50 + (options.gatherMs ?? 0);
  return createEventConsumer({ eventStore, logger: logger.child({ component: 'event-consumer' }), maxHoldMs });
}

