import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DestinationStream } from 'pino';
import { loadConfig } from '../../src/config.js';
import type { Clock } from '../../src/ports/clock.js';
import { createLogger } from '../../src/infrastructure/logger.js';
import { createServer, type Server, type ServerOptions } from '../../src/server.js';
import { createTestDatabase, postgresTarget, type TestDatabase } from './postgres.js';

/**
 * The engines test servers run on: the embedded SQLite files by default; with MAS_TEST_STORE=postgres every
 * server (or set of instances) gets a fresh PostgreSQL database of its own (test/api/onPostgres.test.ts reruns
 * the spec's flows that way).
 */
const onPostgres = () => process.env.MAS_TEST_STORE === 'postgres';

interface TestStore {
  env: Record<string, string>;
  drop(): Promise<void>;
}
const noStore: TestStore = { env: {}, drop: async () => {} };
/** The database that goes with each data directory, so a server restarted on its directory finds its data. */
const storeOfDir = new Map<string, TestStore>();

/** A fresh database's DATABASE_URL when the tests run on PostgreSQL, else nothing. */
async function storeEnv(): Promise<TestStore> {
  if (!onPostgres()) return noStore;
  const target = await postgresTarget();
  if (target.mode === 'skip') throw new Error(`MAS_TEST_STORE=postgres, but ${target.reason}`);
  const db: TestDatabase = await createTestDatabase('api');
  // Small pools: every PostgreSQL test file of the suite shares one server's max_connections.
  return { env: { DATABASE_URL: db.url, PG_POOL_SIZE: '3' }, drop: () => db.drop() };
}

export interface TestServer extends Server {
  dataDir: string;
  close(): Promise<void>;
}

export interface TestServerOptions {
  /** Reuse this data directory (e.g. a server restarted after `stop()`) instead of a fresh temp dir. */
  dataDir?: string;
  /** The server's clock (tokens, sessions, events); the system clock when absent. */
  clock?: Clock;
  /** Name resolution for outbound LLM calls. */
  dnsResolver?: ServerOptions['dnsResolver'];
}

/** A real server on embedded defaults (SQLite files in a fresh temp dir, in-process bus). */
export async function startTestServer(env: Record<string, string> = {}, logDestination?: DestinationStream, options: TestServerOptions = {}): Promise<TestServer> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'mas-test-'));
  // A server restarted on its data directory (or one of several instances) keeps the database that goes with it.
  const store = env.DATABASE_URL ? noStore : (storeOfDir.get(dataDir) ?? (await storeEnv()));
  storeOfDir.set(dataDir, store);
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    DATA_DIR: dataDir,
    AUTH_RATE_LIMIT_PER_MINUTE: '10000',
    AUTH_EMAIL_RATE_LIMIT_PER_MINUTE: '10000',
    ...store.env,
    ...env,
  });
  const server = await createServer(config, createLogger({ level: config.logLevel, ...(logDestination ? { destination: logDestination } : {}) }), {
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.dnsResolver ? { dnsResolver: options.dnsResolver } : {}),
  });
  await server.processingStarted;
  return Object.assign(server, {
    dataDir,
    async close() {
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
      storeOfDir.delete(dataDir);
      await store.drop();
    },
  });
}

let counter = 0;
export const uniqueEmail = (tag = 'user') => `${tag}-${process.pid}-${Date.now()}-${counter++}@example.com`;

/** Servers sharing one data directory; `close()` stops them all and removes the directory. */
export interface TestInstances {
  servers: TestServer[];
  /** Each server's http://127.0.0.1:{port}, in the order of `servers`. */
  bases: string[];
  dataDir: string;
  close(): Promise<void>;
}

/**
 * `count` instances of the service as a scaled-out deployment runs them: one data directory (one event store)
 * and, with NATS_URL in `env`, one NATS. `logDestination(i)` receives instance i's log lines.
 */
export async function startTestInstances(
  count: number,
  env: Record<string, string>,
  options: { logDestination?: (instance: number) => DestinationStream } = {},
): Promise<TestInstances> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mas-instances-'));
  const servers: TestServer[] = [];
  const bases: string[] = [];
  const store = await storeEnv();
  storeOfDir.set(dataDir, store);
  const close = async () => {
    // Each server's own close() would remove the directory the others still use.
    for (const s of servers) await s.stop();
    rmSync(dataDir, { recursive: true, force: true });
    storeOfDir.delete(dataDir);
    await store.drop();
  };
  try {
    for (let i = 0; i < count; i++) {
      const server = await startTestServer(env, options.logDestination?.(i), { dataDir });
      servers.push(server);
      bases.push(await server.listen(0, '127.0.0.1'));
    }
  } catch (error) {
    await close();
    throw error;
  }
  return { servers, bases, dataDir, close };
}
