/**
 * The PostgreSQL server every machine of this project runs (127.0.0.1:5432, trust authentication; CI's too).
 * Each test file gets a database of its own, created empty and dropped after, so runs and files never see each
 * other's data. When the server cannot be reached the suite fails under CI, and elsewhere prints one skip line.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The server's administrative address: PG_TEST_URL, else the local server as the current OS user or `postgres`. */
export const PG_ADMIN_URL = process.env.PG_TEST_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export type PgTarget = { mode: 'run' } | { mode: 'skip'; reason: string };

let probed: Promise<PgTarget> | undefined;

/** Whether the server answers; under CI an unreachable server is an error, never a skip. */
export function postgresTarget(): Promise<PgTarget> {
  probed ??= (async () => {
    const client = new pg.Client({ connectionString: PG_ADMIN_URL, connectionTimeoutMillis: 5_000 });
    try {
      await client.connect();
      await client.query('SELECT 1');
      return { mode: 'run' } as const;
    } catch (err) {
      const reason = `PostgreSQL at ${PG_ADMIN_URL} cannot be reached (${(err as Error).message}); start it with: pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start`;
      if (process.env.CI) throw new Error(`${reason}. Under CI the PostgreSQL suites must run, not skip.`);
      console.log(`[skip] PostgreSQL suites skipped: ${reason}`);
      return { mode: 'skip', reason } as const;
    } finally {
      await client.end().catch(() => undefined);
    }
  })();
  return probed;
}

export interface TestDatabase {
  /** A connection string to the fresh database. */
  url: string;
  name: string;
  drop(): Promise<void>;
}

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: PG_ADMIN_URL, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Creates an empty database named after the run (`mas_test_<pid>_<random>`); `drop()` ends its sessions and removes it. */
export async function createTestDatabase(label = 'run'): Promise<TestDatabase> {
  const name = `mas_test_${label.replace(/[^a-z0-9_]/gi, '_').toLowerCase().slice(0, 20)}_${process.pid}_${randomBytes(4).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE ${name}`));
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: () => admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}
