import type { Bus } from './bus.js';
import type { EventStore } from './eventStore.js';
import type { Leases } from './leases.js';
import type { PersonalDataKeys } from './personalDataKeys.js';
import type { RateLimiter } from './rateLimiter.js';
import type { ReadStore } from './readStore.js';

/**
 * The storage and messaging ports of one process or thread, opened together from the configuration by
 * src/infrastructure/adapters.ts (embedded engines by default, PostgreSQL or EventStoreDB / MongoDB, and NATS, when configured).
 */
export interface Adapters {
  eventStore: EventStore;
  /** The keys of customers' personal data in the log (the event store encrypts with them; erasure deletes them). */
  personalKeys: PersonalDataKeys;
  readStore: ReadStore;
  bus: Bus;
  /** Shares its counters through NATS when the bus does, so limits hold cluster-wide. */
  rateLimiter: RateLimiter;
  /** Who runs each stateful duty when several processors share one store (PostgreSQL); held at once elsewhere. */
  leases: Leases;
  /** Which engine backs each port, for the start-up log line and /readyz. */
  engines: { eventStore: 'sqlite' | 'eventstoredb' | 'postgres'; readStore: 'sqlite' | 'mongodb' | 'postgres'; bus: 'in-process' | 'nats' };
  close(): Promise<void>;
}
