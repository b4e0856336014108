import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewEvent, RecordedEvent } from '../../src/ports/eventStore.js';
import { StoreBusyError, WrongExpectedRevisionError } from '../../src/ports/errors.js';
import { PgEventStore, openPgEventStore } from '../../src/infrastructure/postgres/pgEventStore.js';
import { createTestDatabase, postgresTarget, type TestDatabase } from '../support/postgres.js';
import { eventually } from '../support/eventually.js';
import { eventStoreContract } from './eventStoreContract.js';

// The real server (CI fails when it is unreachable; elsewhere one skip line), one fresh database for this file.
const target = await postgresTarget();

describe.skipIf(target.mode === 'skip')('PostgreSQL event store', () => {
  let db: TestDatabase;
  let admin: pg.Client;

  beforeAll(async () => {
    db = await createTestDatabase('eventstore');
    admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    // Commits need not wait for the disk here (no test crashes the server): thousands of serialised commits
    // would otherwise take a minute on a shared disk. Visibility and its order are the same either way.
    await admin.query(`ALTER DATABASE ${db.name} SET synchronous_commit = off`);
  });
  afterAll(async () => {
    await admin?.end();
    await db?.drop();
  });

  eventStoreContract('postgres', async () => {
    const store = await openPgEventStore(db.url, { pollMs: 50 });
    return { store, cleanup: () => store.close() };
  });

  const ev = (type = 'PgTested', data: unknown = { at: Date.now() }): NewEvent => ({ id: randomUUID(), type, data });
  /** The backends of one store (by application name), its LISTEN connection's name ending in ":listen". */
  const backends = async (applicationName: string) =>
    (
      await admin.query<{ pid: number; application_name: string }>(
        'SELECT pid, application_name FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE $1',
        [`${applicationName}%`],
      )
    ).rows;
  const listenerPid = async (applicationName: string) => (await backends(applicationName)).find((b) => b.application_name.endsWith(':listen'))?.pid;

  it('migrates once when several instances open one empty database at once', async () => {
    const fresh = await createTestDatabase('es_migrate');
    try {
      const stores = await Promise.all(Array.from({ length: 4 }, () => openPgEventStore(fresh.url)));
      await stores[0]!.append('m-1', [ev()], 'no_stream');
      expect((await stores[3]!.readStream('m-1')).length).toBe(1);
      await Promise.all(stores.map((s) => s.close()));
      const client = new pg.Client({ connectionString: fresh.url });
      await client.connect();
      const steps = await client.query("SELECT version FROM schema_migrations WHERE component = 'eventstore'");
      await client.end();
      expect(steps.rows).toEqual([{ version: 1 }]);
    } finally {
      await fresh.drop();
    }
  });

  it('never lets a subscriber skip an event committed late: 20 connections × 200 appends, held open at random', async () => {
    const WRITERS = 20;
    const APPENDS = 200;
    // One store (and so one connection appending) per writer, as separate processes would be. A pause between
    // taking positions and committing, in some transactions: without the position lock, transactions would
    // commit out of position order all the time.
    const writers = await Promise.all(
      Array.from({ length: WRITERS }, () =>
        PgEventStore.open(db.url, {
          poolSize: 1,
          beforeCommit: () => (Math.random() < 0.25 ? new Promise((r) => setTimeout(r, Math.floor(Math.random() * 3))) : Promise.resolve()),
        }),
      ),
    );
    const reader = await openPgEventStore(db.url, { pollMs: 20, applicationName: 'noskip-reader' });
    const prefix = `noskip-${randomUUID()}-`;
    const start = await reader.headPosition();
    const delivered: RecordedEvent[] = [];
    let outOfOrder: string | null = null;
    const errors: unknown[] = [];
    const sub = reader.subscribe({ after: start, filter: { streamPrefixes: [prefix] }, batchSize: 50, onError: (e) => errors.push(e) }, async (events) => {
      for (const e of events) {
        const last = delivered.at(-1);
        if (last && e.position <= last.position) outOfOrder ??= `${e.position} after ${last.position}`;
        delivered.push(e);
      }
    });
    // A second reader pages readAll while the writers run: every page continues the previous one without a hole.
    const paged: RecordedEvent[] = [];
    let writing = true;
    const pager = (async () => {
      let after = start;
      while (writing || paged.length < WRITERS * APPENDS * 1.5) {
        const page = await reader.readAll({ after, maxCount: 200, filter: { streamPrefixes: [prefix] } });
        if (page.length === 0) {
          if (!writing) break;
          await new Promise((r) => setTimeout(r, 2));
          continue;
        }
        paged.push(...page);
        after = page.at(-1)!.position;
      }
    })();
    const appendedIds: string[] = [];
    try {
      await Promise.all(
        Array.from({ length: WRITERS }, async (_, w) => {
          for (let i = 0; i < APPENDS; i++) {
            // Two streams per writer, one or two events per append.
            const events = Array.from({ length: 1 + (i % 2) }, () => ev('NoSkip', { w, i }));
            await writers[w]!.append(`${prefix}${w}-${i % 2}`, events, 'any');
            appendedIds.push(...events.map((e) => e.id));
          }
        }),
      );
      writing = false;
      await pager;
      await eventually(() => expect(delivered.length).toBeGreaterThanOrEqual(appendedIds.length), 30_000);
      await new Promise((r) => setTimeout(r, 200));
      expect(errors).toEqual([]);
      expect(outOfOrder).toBeNull();
      expect(delivered.length).toBe(appendedIds.length);
      expect(new Set(delivered.map((e) => e.id))).toEqual(new Set(appendedIds));
      // The pager read the same sequence: no hole it passed was filled afterwards.
      expect(paged.map((e) => e.id)).toEqual(delivered.map((e) => e.id));
    } finally {
      writing = false;
      await pager.catch(() => undefined);
      await sub.stop();
      await reader.close();
      await Promise.all(writers.map((w) => w.close()));
    }
  }, 180_000);

  it('a subscription is woken by NOTIFY from another instance, long before its next poll', async () => {
    const name = `wake-${randomUUID().slice(0, 8)}`;
    const reader = await openPgEventStore(db.url, { pollMs: 60_000, applicationName: name });
    const writer = await openPgEventStore(db.url);
    const got: RecordedEvent[] = [];
    const sub = reader.subscribe({ after: await reader.headPosition() }, async (events) => {
      got.push(...events);
    });
    try {
      await eventually(async () => expect(await listenerPid(name)).toBeDefined(), 10_000);
      await new Promise((r) => setTimeout(r, 100)); // LISTEN has run, the first read came back empty
      for (let round = 0; round < 3; round++) {
        const e = ev();
        const sent = Date.now();
        await writer.append(`wake-${randomUUID()}`, [e], 'no_stream');
        await eventually(() => expect(got.map((g) => g.id)).toContain(e.id), 10_000);
        expect(Date.now() - sent).toBeLessThan(10_000); // the poll would have taken 60 s
      }
    } finally {
      await sub.stop();
      await reader.close();
      await writer.close();
    }
  });

  it('keeps delivering after its server connections are terminated (as in a server restart)', async () => {
    const name = `term-${randomUUID().slice(0, 8)}`;
    const reader = await openPgEventStore(db.url, { pollMs: 60_000, applicationName: name });
    const writer = await openPgEventStore(db.url);
    const got: RecordedEvent[] = [];
    const errors: unknown[] = [];
    const sub = reader.subscribe({ after: await reader.headPosition(), onError: (e) => errors.push(e) }, async (events) => {
      got.push(...events);
    });
    try {
      const first = await eventually(async () => {
        const pid = await listenerPid(name);
        expect(pid).toBeDefined();
        return pid!;
      }, 10_000);
      // The LISTEN connection alone: it comes back, and notifications wake the subscription again.
      await admin.query('SELECT pg_terminate_backend($1)', [first]);
      const second = await eventually(async () => {
        const pid = await listenerPid(name);
        expect(pid).toBeDefined();
        expect(pid).not.toBe(first);
        return pid!;
      }, 15_000);
      const a = ev();
      await writer.append(`term-${randomUUID()}`, [a], 'no_stream');
      await eventually(() => expect(got.map((g) => g.id)).toContain(a.id), 15_000);

      // Every connection of the reader, pool and listener, while events are appended meanwhile.
      const b = ev();
      await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE $1', [`${name}%`]);
      await writer.append(`term-${randomUUID()}`, [b], 'no_stream');
      await eventually(async () => {
        const pid = await listenerPid(name);
        expect(pid).toBeDefined();
        expect(pid).not.toBe(second);
      }, 15_000);
      await eventually(() => expect(got.map((g) => g.id)).toContain(b.id), 15_000);
      const c = ev();
      await writer.append(`term-${randomUUID()}`, [c], 'no_stream');
      await eventually(() => expect(got.map((g) => g.id)).toContain(c.id), 15_000);
      expect(got.map((g) => g.id)).toEqual([a.id, b.id, c.id]);
      expect(errors).toEqual([]);
      // Reads and appends of the reader itself work again too.
      expect((await reader.append(`term-${randomUUID()}`, [ev()], 'no_stream')).nextRevision).toBe(0n);
    } finally {
      await sub.stop();
      await reader.close();
      await writer.close();
    }
  }, 60_000);

  it('two instances on one database: one appends, the other\'s subscription sees it; both enforce expected revisions', async () => {
    const a = await openPgEventStore(db.url);
    const b = await openPgEventStore(db.url, { pollMs: 60_000 });
    const stream = `shared-${randomUUID()}`;
    const got: RecordedEvent[] = [];
    const sub = b.subscribe({ filter: { streamPrefixes: [stream] } }, async (events) => {
      got.push(...events);
    });
    try {
      const e1 = ev();
      await a.append(stream, [e1], 'no_stream');
      await eventually(() => expect(got.map((e) => e.id)).toEqual([e1.id]), 10_000);
      await expect(b.append(stream, [ev()], 'no_stream')).rejects.toBeInstanceOf(WrongExpectedRevisionError);
      const e2 = ev();
      await b.append(stream, [e2], 0n);
      await expect(a.append(stream, [ev()], 0n)).rejects.toBeInstanceOf(WrongExpectedRevisionError);
      // Racing each other at one revision: exactly one wins.
      const raced = await Promise.allSettled([a.append(stream, [ev()], 1n), b.append(stream, [ev()], 1n)]);
      expect(raced.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      expect((await a.readStream(stream)).map((e) => e.revision)).toEqual([0n, 1n, 2n]);
      await eventually(() => expect(got.map((e) => e.revision)).toEqual([0n, 1n, 2n]), 10_000);
    } finally {
      await sub.stop();
      await a.close();
      await b.close();
    }
  });

  it('an append retried while the original is still committing answers duplicate, and stores the events once', async () => {
    const stores = [await openPgEventStore(db.url), await openPgEventStore(db.url)];
    try {
      for (let round = 0; round < 5; round++) {
        const stream = `race-${randomUUID()}`;
        const events = [ev(), ev()];
        // Two in one instance (one transaction) and two in another (racing it).
        const results = await Promise.all(Array.from({ length: 4 }, (_, i) => stores[i % 2]!.append(stream, events, 'any')));
        expect(results.filter((r) => !r.duplicate)).toHaveLength(1);
        const original = results.find((r) => !r.duplicate)!;
        for (const r of results) expect({ ...r, duplicate: undefined }).toEqual({ ...original, duplicate: undefined });
        expect((await stores[0]!.readStream(stream)).map((e) => e.id)).toEqual(events.map((e) => e.id));
      }
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });

  it('stores data as written: key order, unicode, and strings holding NUL', async () => {
    const store = await openPgEventStore(db.url);
    try {
      const data = { z: 1, a: 'nul\u0000inside', nested: { b: [1, 'x'], a: null }, emoji: '日本 ✓' };
      const stream = `data-${randomUUID()}`;
      await store.append(stream, [ev('PgData', data)], 'no_stream');
      const [stored] = await store.readStream(stream);
      expect(stored!.data).toEqual(data);
      expect(JSON.stringify(stored!.data)).toBe(JSON.stringify(data));
    } finally {
      await store.close();
    }
  });

  it('an append that cannot get the position lock in time fails with StoreBusyError, writing nothing', async () => {
    const store = await openPgEventStore(db.url, { busyTimeoutMs: 300 });
    const holder = new pg.Client({ connectionString: db.url });
    await holder.connect();
    const stream = `busy-${randomUUID()}`;
    try {
      await holder.query('BEGIN');
      // The lock every append transaction takes first (another instance frozen in the middle of an append).
      await holder.query("SELECT pg_advisory_xact_lock(x'6573706f'::int)");
      const err = await store.append(stream, [ev()], 'no_stream').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StoreBusyError);
      await holder.query('ROLLBACK');
      expect(await store.readStream(stream)).toEqual([]);
      expect((await store.append(stream, [ev()], 'no_stream')).nextRevision).toBe(0n);
    } finally {
      await holder.end();
      await store.close();
    }
  });

  it('never scans the events table, also on a new store without statistics, so nothing costs what the store holds', async () => {
    // A fresh database: no statistics (autovacuum had not analysed it, or is off). Plans made then scanned
    // es_events whole at every append, which slowed down as the store grew.
    const fresh = await createTestDatabase('es_scans');
    const store = await openPgEventStore(fresh.url, { pollMs: 50 });
    let inserted = 0;
    try {
      const got: RecordedEvent[] = [];
      const sub = store.subscribe({ filter: { eventTypes: ['Rare', 'Other'], streamPrefixes: ['s-'] } }, async (events) => {
        got.push(...events);
      });
      await Promise.all(
        Array.from({ length: 8 }, async (_, w) => {
          for (let i = 0; i < 60; i++) {
            const events = [ev(i % 10 === 0 ? 'Rare' : 'Common'), ev()];
            await store.append(`s-${w}`, events, i === 0 ? 'no_stream' : BigInt(2 * i - 1));
            inserted += 2;
            if (i % 20 === 5) {
              expect((await store.append(`s-${w}`, events, BigInt(2 * i - 1))).duplicate).toBe(true);
              await expect(store.append(`s-${w}`, [ev()], 0n)).rejects.toBeInstanceOf(WrongExpectedRevisionError);
              await store.readStream(`s-${w}`, { maxCount: 5 });
              await store.readStream(`s-${w}`, { direction: 'backwards', maxCount: 5 });
              await store.readAll({ after: (await store.headPosition())! - 50n, maxCount: 20, filter: { streamPrefixes: ['s-1'] } });
            }
          }
        }),
      );
      await eventually(() => expect(got.length).toBe(8 * 6), 10_000);
      await sub.stop();
    } finally {
      await store.close();
    }
    const client = new pg.Client({ connectionString: fresh.url });
    await client.connect();
    try {
      // The store's connections have ended, so their counters reach the statistics (a moment after).
      const stats = await eventually(async () => {
        const row = (await client.query<{ seq_scan: string; n_tup_ins: string }>("SELECT seq_scan, n_tup_ins FROM pg_stat_user_tables WHERE relname = 'es_events'")).rows[0]!;
        expect(Number(row.n_tup_ins)).toBe(inserted);
        return row;
      }, 15_000);
      // Building each index at migration read the (empty) table once: those are the only scans.
      const indexes = await client.query("SELECT indexname FROM pg_indexes WHERE tablename = 'es_events'");
      expect(Number(stats.seq_scan)).toBe(indexes.rowCount);
    } finally {
      await client.end();
      await fresh.drop();
    }
  }, 60_000);

  it('probeWrite commits without appending an event', async () => {
    const store = await openPgEventStore(db.url);
    try {
      const head = await store.headPosition();
      await store.probeWrite();
      await store.probeWrite();
      expect(await store.headPosition()).toBe(head);
    } finally {
      await store.close();
    }
  });

  it('an unreachable server fails the open with an error that never shows the password', async () => {
    const url = new URL(db.url);
    url.port = '1'; // nothing listens there
    url.username = 'someone';
    url.password = 's3cret-pw';
    const err = await openPgEventStore(url.toString()).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(Error);
    expect(String((err as Error).message)).not.toContain('s3cret-pw');
    expect(JSON.stringify(err)).not.toContain('s3cret-pw');
  });

  it('a stopped server fails reads and appends with errors, not a hang, and the store works again after', async () => {
    const name = `down-${randomUUID().slice(0, 8)}`;
    const store = await openPgEventStore(db.url, { applicationName: name, poolSize: 2 });
    try {
      await store.append(`down-${randomUUID()}`, [ev()], 'no_stream');
      // Connections killed under the pool (the server restarting): the next statements fail or reconnect,
      // each settling promptly.
      await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE $1', [`${name}%`]);
      const outcomes = await Promise.allSettled([store.headPosition(), store.append(`down-${randomUUID()}`, [ev()], 'no_stream')]);
      for (const o of outcomes) if (o.status === 'rejected') expect(o.reason).toBeInstanceOf(Error);
      await eventually(async () => expect((await store.append(`down-${randomUUID()}`, [ev()], 'no_stream')).nextRevision).toBe(0n), 10_000);
    } finally {
      await store.close();
    }
  });
});
