import type { Bus } from './bus.js';
import type { EventStore } from './eventStore.js';
import type { RateLimiter } from './rateLimiter.js';
import type { ReadStore } from './readStore.js';

/**
 * The storage and messaging ports of one process or thread, opened together from the configuration by
 * src/infrastructure/adapters.ts (embedded engines by default, EventStoreDB / MongoDB / NATS when configured).
 */
export interface Adapters {
  eventStore: EventStore;
  readStore: ReadStore;
  bus: Bus;
  /** Shares its counters through NATS when the bus does, so limits hold cluster-wide. */
  rateLimiter: RateLimiter;
  /** Which engine backs each port, for the start-up log line and /readyz. */
  engines: { eventStore: 'sqlite' | 'eventstoredb'; readStore: 'sqlite' | 'mongodb'; bus: 'in-process' | 'nats' };
  close(): Promise<void>;
}
