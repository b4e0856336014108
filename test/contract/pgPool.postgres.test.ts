/**
 * The shared PostgreSQL pool when the server ends its connections (a server restart, a failover,
 * pg_terminate_backend): a connection ended while checked out of the pool fails its work and nothing else; the
 * process goes on and the pool connects again. Before, the checked-out client emitted 'error' with no listener:
 * an uncaught exception that ended the thread (and in ROLE=all the whole service) mid-flood.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inTransaction, openPgPool } from '../../src/infrastructure/postgres/pool.js';
import { eventually } from '../support/eventually.js';
import { createTestDatabase, postgresTarget, type TestDatabase } from '../support/postgres.js';

const target = await postgresTarget();

describe.skipIf(target.mode === 'skip')('the PostgreSQL pool when the server ends its connections', () => {
  let db: TestDatabase;
  let admin: pg.Client;
  beforeAll(async () => {
    db = await createTestDatabase('pool');
    admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
    await db?.drop();
  });

  const endSessions = (app: string) => admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND application_name = $2', [db.name, app]);

  it('a connection ended while checked out (between the statements of a transaction) fails that transaction only; the pool serves the next one', async () => {
    const pool = openPgPool({ connectionString: db.url, max: 2, applicationName: 'pool-under-test' });
    try {
      await pool.query('CREATE TABLE t (id integer PRIMARY KEY)');
      const uncaught: unknown[] = [];
      const onUncaught = (err: unknown) => uncaught.push(err);
      process.on('uncaughtException', onUncaught);
      try {
        const failed = inTransaction(pool, async (client) => {
          await client.query('INSERT INTO t VALUES (1)');
          await endSessions('pool-under-test');
          // The client is idle between statements when the server's notice arrives: give it time to land.
          await new Promise((r) => setTimeout(r, 300));
          await client.query('INSERT INTO t VALUES (2)');
        });
        await expect(failed).rejects.toThrow();
        expect(uncaught).toEqual([]);
      } finally {
        process.off('uncaughtException', onUncaught);
      }
      // Nothing of the failed transaction was committed, and the pool works again.
      await eventually(async () => expect((await pool.query('SELECT count(*)::int AS n FROM t')).rows[0].n).toBe(0), 10_000, 100);
    } finally {
      await pool.end();
    }
  });
});
