import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Config } from '../config.js';
import { eventCatalog } from '../domain/catalog.js';
import type { Adapters } from '../ports/adapters.js';
import type { Bus } from '../ports/bus.js';
import type { EventStore } from '../ports/eventStore.js';
import type { Logger } from '../ports/logger.js';
import type { RateLimiter } from '../ports/rateLimiter.js';
import type { ReadStore } from '../ports/readStore.js';
import { createInProcessBus } from './memory/inProcessBus.js';
import { createMemoryRateLimiter } from './memory/memoryRateLimiter.js';
import { soleLeases } from './memory/soleLeases.js';
import { openSqliteEventStore } from './sqlite/sqliteEventStore.js';
import { SqliteReadStore } from './sqlite/sqliteReadStore.js';
import { eventStoreReady, trackWriteHealth } from './storeHealth.js';
import { validatingEventStore } from './validatingEventStore.js';

/**
 * The event store alone (the replay CLI needs nothing else), validating every event against the catalog.
 * The production engines' drivers (EventStoreDB, MongoDB, NATS) are imported only when configured: loading
 * them costs about a second of start-up CPU per thread that the embedded defaults do not need.
 */
const SPLIT_ROLE_POLL_MS = 25;

export async function openEventStore(config: Config, logger: Logger): Promise<EventStore> {
  if (!config.eventStoreUrl) mkdirSync(config.dataDir, { recursive: true });
  if (config.eventStoreUrl) {
    const { openEsdbEventStore } = await import('./eventstoredb/esdbEventStore.js');
    return wrapEventStore(openEsdbEventStore(config.eventStoreUrl, { logger: logger.child({ adapter: 'eventstoredb' }) }));
  }
  // Threads of one process wake each other on every commit; processes sharing the file (ROLE=api beside
  // ROLE=processor) only see each other's appends by looking, so they look often: a look is one indexed read,
  // and each hop of a message (stored → job, answer → send) otherwise waited up to 250 ms for it.
  const pollMs = config.role === 'all' ? undefined : SPLIT_ROLE_POLL_MS;
  const sqlite = openSqliteEventStore(join(config.dataDir, 'events.sqlite'), { wakeOtherThreads: true, checkpointOnWorker: true, ...(pollMs ? { pollMs } : {}) });
  return wrapEventStore(sqlite, () => sqlite.probeWrite());
}

/**
 * What every raw adapter is wrapped in: schema validation of each event, and write-health tracking for
 * /readyz (`probe` proves the store writable again after a failed append; see storeHealth.ts).
 */
export function wrapEventStore(raw: EventStore, probe?: () => void | Promise<void>): EventStore {
  const validated = validatingEventStore(raw, eventCatalog);
  return probe ? trackWriteHealth(validated, { probe }) : validated;
}

/**
 * Chooses each port's adapter from the configuration: the embedded default (SQLite files in DATA_DIR,
 * an in-process bus) unless the production engine's URL is set.
 */
export async function openAdapters(config: Config, logger: Logger): Promise<Adapters> {
  const needsDataDir = !config.eventStoreUrl || !config.mongodbUri;
  if (needsDataDir) mkdirSync(config.dataDir, { recursive: true });

  const eventStore = await openEventStore(config, logger);

  const readStore: ReadStore = config.mongodbUri
    ? await (await import('./mongodb/mongoReadStore.js')).MongoReadStore.connect({ uri: config.mongodbUri, dbName: config.mongodbDb, logger: logger.child({ adapter: 'mongodb' }) })
    : SqliteReadStore.open({ path: join(config.dataDir, 'readmodels.sqlite'), logger: logger.child({ adapter: 'sqlite-read' }), checkpointOnWorker: true });

  const nats = config.natsUrl ? { ...(await import('./nats/natsBus.js')), ...(await import('./nats/natsRateLimiter.js')) } : undefined;
  const natsBus = nats && config.natsUrl
    ? await nats.connectNatsBus({ servers: config.natsUrl, logger: logger.child({ adapter: 'nats' }), name: 'messaging-agent-service' })
    : undefined;
  const bus: Bus = natsBus ?? createInProcessBus({ logger: logger.child({ adapter: 'in-process-bus' }), threadChannel: `mas-bus:${resolve(config.dataDir)}` });
  const rateLimiter: RateLimiter = nats && natsBus
    ? await nats.openNatsRateLimiter({ nc: natsBus.nc, logger: logger.child({ adapter: 'nats' }) })
    : createMemoryRateLimiter();

  return {
    eventStore,
    readStore,
    bus,
    rateLimiter,
    leases: soleLeases,
    engines: {
      eventStore: config.eventStoreUrl ? 'eventstoredb' : 'sqlite',
      readStore: config.mongodbUri ? 'mongodb' : 'sqlite',
      bus: config.natsUrl ? 'nats' : 'in-process',
    },
    async close() {
      // Reverse order of dependency: nothing publishes once the bus is gone, nothing projects once stores close.
      await rateLimiter.close().catch((err) => logger.error({ err }, 'closing the rate limiter failed'));
      await bus.close().catch((err) => logger.error({ err }, 'closing the bus failed'));
      await readStore.close().catch((err) => logger.error({ err }, 'closing the read store failed'));
      await eventStore.close().catch((err) => logger.error({ err }, 'closing the event store failed'));
    },
  };
}

/** What /readyz checks of the adapters: the event store can write, the read store answers, the bus is connected. */
export async function adapterReadiness(adapters: Pick<Adapters, 'eventStore' | 'readStore' | 'bus'>): Promise<Record<string, boolean>> {
  return {
    eventStore: await eventStoreReady(adapters.eventStore),
    readStore: await adapters.readStore.activeGeneration().then(
      () => true,
      () => false,
    ),
    bus: adapters.bus.isConnected(),
  };
}
