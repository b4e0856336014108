import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Config } from '../config.js';
import { eventCatalog } from '../domain/catalog.js';
import type { Adapters } from '../ports/adapters.js';
import type { Bus } from '../ports/bus.js';
import type { EventStore } from '../ports/eventStore.js';
import type { Leases } from '../ports/leases.js';
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
import type { PersonalDataKeys } from '../ports/personalDataKeys.js';
import { encryptingEventStore } from './personalKeys/encryptingEventStore.js';
import { createMemoryPersonalDataKeys } from './personalKeys/memoryPersonalDataKeys.js';
import { cachePersonalDataKeys } from './personalKeys/cachedPersonalDataKeys.js';
import { openSqlitePersonalDataKeys } from './personalKeys/sqlitePersonalDataKeys.js';

/**
 * The event store alone (the replay CLI needs nothing else), validating every event against the catalog.
 * The production engines' drivers (PostgreSQL, EventStoreDB, MongoDB, NATS) are imported only when configured: loading
 * them costs about a second of start-up CPU per thread that the embedded defaults do not need.
 */
const SPLIT_ROLE_POLL_MS = 25;

/** The event store with its key store closed alongside (the CLI tools, which need nothing else). */
export async function openEventStore(config: Config, logger: Logger): Promise<EventStore> {
  const keys = await openPersonalDataKeys(config, logger);
  const eventStore = await openEventStoreWith(config, logger, keys);
  return {
    ...eventStore,
    close: async () => {
      await eventStore.close();
      await keys.close();
    },
  };
}

/**
 * The keys that encrypt customers' personal data in the log (docs/erasure.md), kept apart from it: a table of
 * the same PostgreSQL database, else `keys.sqlite` in DATA_DIR (beside EventStoreDB too: a deployment on
 * EventStoreDB keeps DATA_DIR on a volume for them).
 */
export async function openPersonalDataKeys(config: Config, logger: Logger): Promise<PersonalDataKeys> {
  if (config.databaseUrl) {
    const { openPgPersonalDataKeys } = await import('./personalKeys/pgPersonalDataKeys.js');
    return openPgPersonalDataKeys({ connectionString: config.databaseUrl, applicationName: pgApplicationName(config, 'keys'), logger: logger.child({ adapter: 'postgres-keys' }) });
  }
  mkdirSync(config.dataDir, { recursive: true });
  return openSqlitePersonalDataKeys(join(config.dataDir, 'keys.sqlite'));
}

async function openEventStoreWith(config: Config, logger: Logger, keys: PersonalDataKeys): Promise<EventStore> {
  if (config.databaseUrl) {
    const { openPgEventStore } = await import('./postgres/pgEventStore.js');
    const pg = await openPgEventStore(config.databaseUrl, { logger: logger.child({ adapter: 'postgres-events' }), applicationName: pgApplicationName(config, 'events'), poolSize: config.pgPoolSize });
    return wrapEventStore(pg, () => pg.probeWrite(), keys);
  }
  if (!config.eventStoreUrl) mkdirSync(config.dataDir, { recursive: true });
  if (config.eventStoreUrl) {
    const { openEsdbEventStore } = await import('./eventstoredb/esdbEventStore.js');
    return wrapEventStore(openEsdbEventStore(config.eventStoreUrl, { logger: logger.child({ adapter: 'eventstoredb' }) }), undefined, keys);
  }
  // Threads of one process wake each other on every commit; processes sharing the file (ROLE=api beside
  // ROLE=processor) only see each other's appends by looking, so they look often: a look is one indexed read,
  // and each hop of a message (stored → job, answer → send) otherwise waited up to 250 ms for it.
  const pollMs = config.role === 'all' ? undefined : SPLIT_ROLE_POLL_MS;
  const sqlite = openSqliteEventStore(join(config.dataDir, 'events.sqlite'), { wakeOtherThreads: true, checkpointOnWorker: true, ...(pollMs ? { pollMs } : {}) });
  return wrapEventStore(sqlite, () => sqlite.probeWrite(), keys);
}

/**
 * What every raw adapter is wrapped in: encryption of customers' personal data under their keys (`keys`; a
 * store of its own in memory when none is given: tests only), schema validation of each event (of the
 * plaintext: validation sits outside encryption), and write-health tracking for /readyz (`probe` proves the
 * store writable again after a failed append; see storeHealth.ts).
 */
export function wrapEventStore(raw: EventStore, probe?: () => void | Promise<void>, keys: PersonalDataKeys = createMemoryPersonalDataKeys()): EventStore {
  const validated = validatingEventStore(encryptingEventStore(raw, keys), eventCatalog);
  return probe ? trackWriteHealth(validated, { probe }) : validated;
}

/**
 * Chooses each port's adapter from the configuration: the embedded default (SQLite files in DATA_DIR,
 * an in-process bus) unless the production engine's URL is set.
 */
export async function openAdapters(config: Config, logger: Logger): Promise<Adapters> {
  const needsDataDir = !config.databaseUrl && (!config.eventStoreUrl || !config.mongodbUri);
  if (needsDataDir) mkdirSync(config.dataDir, { recursive: true });

  // One cache shared by the event store and the erasure: an erasure in this process drops its cached keys at once.
  const personalKeys = cachePersonalDataKeys(await openPersonalDataKeys(config, logger));
  const eventStore = await openEventStoreWith(config, logger, personalKeys);

  const readStore: ReadStore = config.databaseUrl
    ? await (await import('./postgres/pgReadStore.js')).PgReadStore.connect({ connectionString: config.databaseUrl, logger: logger.child({ adapter: 'postgres-read' }), applicationName: pgApplicationName(config, 'read'), poolSize: config.pgPoolSize })
    : config.mongodbUri
      ? await (await import('./mongodb/mongoReadStore.js')).MongoReadStore.connect({ uri: config.mongodbUri, dbName: config.mongodbDb, logger: logger.child({ adapter: 'mongodb' }) })
      : SqliteReadStore.open({ path: join(config.dataDir, 'readmodels.sqlite'), logger: logger.child({ adapter: 'sqlite-read' }), checkpointOnWorker: true });
  // Several processors share one PostgreSQL: each stateful duty runs where its lease is held. Elsewhere one
  // process owns its store (or every processor runs every duty, each guarded), so every lease is held at once.
  const leases: Leases = config.databaseUrl
    ? (await import('./postgres/pgLeases.js')).openPgLeases({ connectionString: config.databaseUrl, applicationName: pgApplicationName(config, 'leases'), logger: logger.child({ adapter: 'postgres-leases' }), checkMs: config.leases.checkMs })
    : soleLeases;

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
    personalKeys,
    readStore,
    bus,
    rateLimiter,
    leases,
    engines: {
      eventStore: config.databaseUrl ? 'postgres' : config.eventStoreUrl ? 'eventstoredb' : 'sqlite',
      readStore: config.databaseUrl ? 'postgres' : config.mongodbUri ? 'mongodb' : 'sqlite',
      bus: config.natsUrl ? 'nats' : 'in-process',
    },
    async close() {
      // Reverse order of dependency: nothing publishes once the bus is gone, nothing projects once stores close.
      // The duties have stopped by now: their leases go first, so a standby takes them without waiting.
      await leases.close().catch((err) => logger.error({ err }, 'closing the leases failed'));
      await rateLimiter.close().catch((err) => logger.error({ err }, 'closing the rate limiter failed'));
      await bus.close().catch((err) => logger.error({ err }, 'closing the bus failed'));
      await readStore.close().catch((err) => logger.error({ err }, 'closing the read store failed'));
      await eventStore.close().catch((err) => logger.error({ err }, 'closing the event store failed'));
      await personalKeys.close().catch((err) => logger.error({ err }, 'closing the key store failed'));
    },
  };
}

/**
 * The name each PostgreSQL connection shows in pg_stat_activity: role, process and purpose, so an operator (and
 * the multi-instance tests) can tell which instance holds which lease. PostgreSQL keeps 63 bytes of it.
 */
export function pgApplicationName(config: Pick<Config, 'role'>, purpose: 'events' | 'read' | 'leases' | 'keys'): string {
  return `mas ${config.role} ${process.pid} ${purpose}`;
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
