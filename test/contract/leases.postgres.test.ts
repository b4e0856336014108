/**
 * Leases on PostgreSQL (session advisory locks): one holder at a time, and a lease passes on when its holder's
 * connection ends, whether it released it, the server ended the session, or the holder's process was killed.
 */
import { spawn } from 'node:child_process';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPgLeases } from '../../src/infrastructure/postgres/pgLeases.js';
import type { Leases } from '../../src/ports/leases.js';
import { startLeasedDuty } from '../../src/processing/leasedDuty.js';
import { createLogger } from '../../src/infrastructure/logger.js';
import { eventually } from '../support/eventually.js';
import { createTestDatabase, postgresTarget, type TestDatabase } from '../support/postgres.js';

const target = await postgresTarget();
const logger = createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });

describe.skipIf(target.mode === 'skip')('leases on PostgreSQL', () => {
  let db: TestDatabase;
  let admin: pg.Client;
  const opened: Leases[] = [];
  const open = (applicationName: string, checkMs = 200) => {
    const leases = openPgLeases({ connectionString: db.url, applicationName, logger, checkMs });
    opened.push(leases);
    return leases;
  };
  /** Ends the sessions of `applicationName` from the server's side, as an administrator (or a failover) would. */
  const terminate = (applicationName: string) =>
    admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND application_name = $2', [db.name, applicationName]);

  beforeAll(async () => {
    db = await createTestDatabase('leases');
    admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
  });
  afterAll(async () => {
    for (const l of opened) await l.close();
    await admin?.end();
    await db?.drop();
  });

  it('one holder at a time: the second asker gets nothing until the first releases', async () => {
    const a = open('a1');
    const b = open('b1');
    const held = await a.tryAcquire('projections');
    expect(held).not.toBeNull();
    expect(await b.tryAcquire('projections')).toBeNull();
    // Another name is another lease.
    expect(await b.tryAcquire('reactors')).not.toBeNull();
    await held!.release();
    expect(await b.tryAcquire('projections')).not.toBeNull();
    expect(await a.tryAcquire('projections')).toBeNull();
  });

  it('the same process asking twice does not hold it twice (advisory locks are re-entrant per session)', async () => {
    const a = open('a2');
    const first = await a.tryAcquire('sweeps-2');
    expect(first).not.toBeNull();
    expect(await a.tryAcquire('sweeps-2')).toBeNull();
    await first!.release();
    expect(await a.tryAcquire('sweeps-2')).not.toBeNull();
  });

  it('a holder whose session the server ends learns it has lost the lease, and another instance takes it', async () => {
    const a = open('a3');
    const b = open('b3');
    const held = await a.tryAcquire('projections-3');
    expect(held).not.toBeNull();
    let lost = false;
    void held!.lost.then(() => (lost = true));
    await terminate('a3');
    await eventually(() => expect(lost).toBe(true), 15_000, 50);
    await eventually(async () => expect(await b.tryAcquire('projections-3')).not.toBeNull(), 15_000, 100);
  });

  it("a holder killed with SIGKILL releases the lease at once: the server ends the dead process's session", async () => {
    const name = 'killed-holder';
    const script = `
      import pg from 'pg';
      const c = new pg.Client({ connectionString: process.env.DB, application_name: 'victim' });
      await c.connect();
      const { rows } = await c.query('SELECT pg_try_advisory_lock($1, hashtext($2)) AS ok', [0x6d61736c, '${name}']);
      console.log(rows[0].ok ? 'held' : 'refused');
      setInterval(() => {}, 1000);
    `;
    // The child takes the lease the way the adapter does (the same key), through its own process and connection.
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, DB: db.url }, stdio: ['ignore', 'pipe', 'inherit'] });
    const said = await new Promise<string>((resolve) => child.stdout.once('data', (d: Buffer) => resolve(d.toString().trim())));
    expect(said).toBe('held');
    const b = open('b4');
    expect(await b.tryAcquire(name)).toBeNull();
    child.kill('SIGKILL');
    await eventually(async () => expect(await b.tryAcquire(name)).not.toBeNull(), 15_000, 100);
  });

  it('a leased duty runs on one instance, and moves to the standby when the holder loses its connection', async () => {
    const a = open('a5');
    const b = open('b5');
    const running = new Set<string>();
    const duty = (who: string) =>
      startLeasedDuty({
        leases: who === 'a' ? a : b,
        name: 'duty-5',
        retryMs: 100,
        logger,
        start: async () => {
          running.add(who);
          return { stop: async () => void running.delete(who) };
        },
      });
    const dutyA = await duty('a');
    const dutyB = await duty('b');
    expect(dutyA.held()).toBe(true);
    expect(dutyB.held()).toBe(false);
    expect([...running]).toEqual(['a']);
    await terminate('a5');
    await eventually(() => expect([...running]).toEqual(['b']), 15_000, 50);
    expect(dutyA.held()).toBe(false);
    expect(dutyB.held()).toBe(true);
    // A stops asking (it would get it back after B): B keeps it, and stopping B releases it.
    await dutyA.stop();
    await dutyB.stop();
    expect(running.size).toBe(0);
    const c = open('c5');
    expect(await c.tryAcquire('duty-5')).not.toBeNull();
  });
});
