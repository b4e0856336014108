import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { PgReadStore } from '../../src/infrastructure/postgres/pgReadStore.js';
import { ProjectionConflictError, type CollectionSpec, type Doc, type FindQuery, type ReadStore } from '../../src/ports/readStore.js';
import { createTestDatabase, postgresTarget, type TestDatabase } from '../support/postgres.js';
import { readStoreContract } from './readStoreContract.js';

// One fresh database for this file; every contract test gets read models of its own by dropping what the previous
// one left (the schema_migrations rows stay: the store's own tables are emptied, never dropped).
const target = await postgresTarget();

describe.skipIf(target.mode === 'skip')('PostgreSQL read store', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase('readstore');
  }, 60_000);
  afterAll(async () => {
    await db?.drop();
  });

  const opened: PgReadStore[] = [];
  const open = async (poolSize?: number) => {
    const store = await PgReadStore.connect({ connectionString: db.url, applicationName: 'readstore-test', poolSize });
    opened.push(store);
    return store;
  };
  const closeAll = async () => {
    for (const s of opened.splice(0)) await s.close();
  };

  /** Drops every read model table and empties the store's own tables: the next test starts as on a new database. */
  async function reset(): Promise<void> {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ tablename: string }>(
        `SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename LIKE 'rm\\_%' AND tablename NOT IN ('rm_meta', 'rm_collections', 'rm_checkpoints', 'rm_reactor_checkpoints')`,
      );
      for (const r of rows) await client.query(`DROP TABLE IF EXISTS "${r.tablename}"`);
      const exists = await client.query(`SELECT 1 FROM pg_tables WHERE schemaname = current_schema() AND tablename = 'rm_meta'`);
      if (exists.rows.length > 0) {
        await client.query('TRUNCATE rm_collections, rm_checkpoints, rm_reactor_checkpoints');
        await client.query(`UPDATE rm_meta SET value = 1`);
      }
    } finally {
      await client.end();
    }
  }

  readStoreContract(
    'postgres',
    async () => {
      await reset();
      const store = await open();
      return {
        store,
        openAnother: () => open(),
        cleanup: closeAll,
      };
    },
    { atomicCommit: true, deletesGuarded: false, prefixSearch: true },
  );

  describe('PostgreSQL specifics', () => {
    afterEach(closeAll); // also when a test failed half-way: no pool outlives its test
    const counters: CollectionSpec = { name: 'counters', indexes: [] };

    it('given two instances running one projector at once, then every event is counted exactly once', async () => {
      await reset();
      const [a, b] = [await open(4), await open(4)];
      await a.ensureCollections([counters]);
      await b.ensureCollections([counters]);
      type Counter = Doc & { n: number; by: string[] };
      // Each instance runs the projector's loop: read the checkpoint and the counter, count the next event,
      // commit on that checkpoint. A ProjectionConflictError (the other moved it) or a replay (the other already
      // committed that position) sends it back to read again; without the checkpoint row's lock both would
      // count the same event on the same counter.
      const run = async (store: ReadStore, name: string) => {
        let committed = 0;
        for (;;) {
          const stored = await store.checkpoint('count');
          const at = stored ?? 0n;
          if (at >= 40n) return committed;
          const doc = (await store.get<Counter>('counters', 'c')) ?? { id: 'c', n: 0, by: [] };
          try {
            await store.commit('count', [{ kind: 'put', collection: 'counters', doc: { id: 'c', n: doc.n + 1, by: [...doc.by, `${name}@${at + 1n}`] } }], at + 1n, stored);
            committed++;
          } catch (err) {
            if (!(err instanceof ProjectionConflictError)) throw err;
          }
        }
      };
      const [fromA, fromB] = await Promise.all([run(a, 'a'), run(b, 'b')]);
      const final = (await a.get<Counter>('counters', 'c'))!;
      expect(await a.checkpoint('count')).toBe(40n);
      expect(final.n).toBe(40);
      expect(final.by.map((s) => Number(s.split('@')[1]))).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
      // Both took part (else nothing raced): each commit call that returned was applied or was a replay.
      expect(fromA).toBeGreaterThan(0);
      expect(fromB).toBeGreaterThan(0);
    }, 60_000);

    it('given two instances committing batches computed on the same checkpoint at once, then one wins and the other is refused or a replay', async () => {
      await reset();
      const [a, b] = [await open(), await open()];
      await a.ensureCollections([counters]);
      await b.ensureCollections([counters]);
      await a.commit('p', [{ kind: 'put', collection: 'counters', doc: { id: 'c', by: 'start' } }], 1n, null);
      for (let round = 0; round < 15; round++) {
        const base = (await a.checkpoint('p'))!;
        // a covers one more event than b. a first: b's batch is at or below the checkpoint, a replay. b first:
        // a's batch was computed on a checkpoint that has moved, refused.
        const [ra, rb] = await Promise.allSettled([
          a.commit('p', [{ kind: 'put', collection: 'counters', doc: { id: 'c', by: `a${round}` } }], base + 2n, base),
          b.commit('p', [{ kind: 'put', collection: 'counters', doc: { id: 'c', by: `b${round}` } }], base + 1n, base),
        ]);
        expect(rb!.status).toBe('fulfilled');
        if (ra!.status === 'fulfilled') {
          expect(await b.get('counters', 'c')).toEqual({ id: 'c', by: `a${round}` });
          expect(await b.checkpoint('p')).toBe(base + 2n);
        } else {
          expect(ra!.reason).toBeInstanceOf(ProjectionConflictError);
          expect(await b.get('counters', 'c')).toEqual({ id: 'c', by: `b${round}` });
          expect(await b.checkpoint('p')).toBe(base + 1n);
        }
      }
    }, 60_000);

    it('given one instance committing while another switches over to a rebuilt generation, then every commit lands whole in one generation', async () => {
      await reset();
      const [a, b] = [await open(), await open()];
      await a.ensureCollections([counters]);
      let switched = false;
      let after = -1;
      const writer = (async () => {
        for (let i = 1; after < 0 || i <= after + 5; i++) {
          await a.commit('w', [{ kind: 'put', collection: 'counters', doc: { id: 'x', v: i } }, { kind: 'put', collection: 'counters', doc: { id: `d${i}` } }], BigInt(i));
          if (switched && after < 0) after = i;
          if (i > 2000) throw new Error('the switch-over never finished');
        }
        return after + 5;
      })();
      const switcher = (async () => {
        await new Promise((r) => setTimeout(r, 50));
        const rebuild = await b.startRebuild();
        await rebuild.store.ensureCollections([counters]);
        await rebuild.switchOver();
        switched = true;
      })();
      const [last] = await Promise.all([writer, switcher]);
      // The commits after the switch went to the new generation, whole: the counter and every document with it.
      expect(await a.get('counters', 'x')).toEqual({ id: 'x', v: last });
      expect(await b.checkpoint('w')).toBe(BigInt(last));
      const docs = (await b.find('counters', { limit: 1000 })).items.filter((d) => d.id !== 'x').map((d) => Number(d.id.slice(1)));
      expect(docs.length).toBeGreaterThanOrEqual(5);
      expect(docs.sort((x, y) => x - y)).toEqual(Array.from({ length: docs.length }, (_, i) => last - docs.length + 1 + i));
    }, 60_000);

    it('given rebuilds started at once by several instances, then each gets a generation of its own', async () => {
      await reset();
      const stores = await Promise.all(Array.from({ length: 4 }, () => open(2)));
      const rebuilds = await Promise.all([...stores, ...stores].map((s) => s.startRebuild()));
      const generations = rebuilds.map((r) => r.generation);
      expect(new Set(generations).size).toBe(8);
      expect(Math.min(...generations)).toBeGreaterThan(await stores[0]!.activeGeneration());
    });

    it('given several instances starting at once on an empty database, then each migrates or finds it migrated, and declares the same collections', async () => {
      const fresh = await createTestDatabase('readstore_start');
      const stores: PgReadStore[] = [];
      try {
        const specs: CollectionSpec[] = [
          { name: 'conversations', indexes: [['companyId', 'updatedAt'], 'status'] },
          { name: 'search_entries', indexes: ['companyId'], fullText: { fields: ['text'], scope: 'companyId', order: 'seq' } },
        ];
        const started = await Promise.all(
          Array.from({ length: 4 }, async () => {
            const store = await PgReadStore.connect({ connectionString: fresh.url, poolSize: 2 });
            stores.push(store);
            await store.ensureCollections(specs);
            return store;
          }),
        );
        await started[0]!.commit('p', [{ kind: 'put', collection: 'search_entries', doc: { id: 'e1', companyId: 'c', seq: 1, text: 'hello world' } }], 1n);
        for (const store of started) {
          expect((await store.search('search_entries', { scope: 'c', text: 'hello' })).items.map((h) => h.doc.id)).toEqual(['e1']);
        }
      } finally {
        for (const s of stores) await s.close();
        await fresh.drop();
      }
    }, 60_000);

    it('reads a company-scoped, sorted page of a large collection through its index (no scan and sort of the table)', async () => {
      await reset();
      const store = await open();
      const conversations: CollectionSpec = { name: 'conversations', indexes: [['companyId', 'updatedAt'], 'status'] };
      await store.ensureCollections([conversations]);
      const companies = 40;
      for (let batch = 0; batch < 4; batch++) {
        const ops = Array.from({ length: 5000 }, (_, i) => {
          const n = batch * 5000 + i;
          return {
            kind: 'put' as const,
            collection: 'conversations',
            doc: { id: `conv-${n}`, companyId: `company-${n % companies}`, updatedAt: `2026-01-01T00:00:${String(n).padStart(6, '0')}Z`, status: n % 3 ? 'open' : 'closed' },
          };
        });
        await store.commit('p', ops, BigInt(batch + 1));
      }
      const admin = new pg.Client({ connectionString: db.url });
      await admin.connect();
      await admin.query('ANALYZE');
      await admin.end();
      const query = { where: { companyId: 'company-7' }, orderBy: [{ field: 'updatedAt', direction: 'desc' as const }], limit: 50 };
      const first = await store.find('conversations', query);
      for (const q of [query, { ...query, cursor: first.nextCursor }] as FindQuery[]) {
        const plan = await store.explainFind('conversations', q);
        expect(plan).toMatch(/Index Scan/);
        expect(plan).not.toMatch(/Seq Scan|Sort|Filter:/);
        // A later page starts inside the index (the cursor is part of the index condition), not after the rows
        // of every earlier page read and dropped.
        if (q.cursor) expect(plan).toMatch(/Index Cond: .* AND \(ROW\(/);
      }
      // And the pages are right: the company's newest first, the second page continuing where the first ended.
      const second = await store.find('conversations', { ...query, cursor: first.nextCursor });
      const all = [...first.items, ...second.items] as (Doc & { companyId: string; updatedAt: string })[];
      expect(all.every((d) => d.companyId === 'company-7')).toBe(true);
      expect(all.map((d) => d.updatedAt)).toEqual([...all.map((d) => d.updatedAt)].sort().reverse());
      expect(all.map((d) => d.id)).toEqual(Array.from({ length: 100 }, (_, i) => `conv-${19_967 - i * companies}`));
    }, 120_000);

    it('searches one company through the words index: another company\'s many documents with the same words are not read', async () => {
      await reset();
      const store = await open();
      const entries: CollectionSpec = { name: 'entries', indexes: ['companyId'], fullText: { fields: ['text'], scope: 'companyId', order: 'seq' } };
      await store.ensureCollections([entries]);
      const entry = (seq: number, companyId: string, text: string) => ({ kind: 'put' as const, collection: 'entries', doc: { id: `e${seq}`, companyId, seq, text } });
      // A large company whose every entry holds the words searched, and a small one with a few.
      for (let batch = 0; batch < 4; batch++) {
        await store.commit('p', Array.from({ length: 5000 }, (_, i) => entry(batch * 5000 + i + 1, 'big', `refund for order ${i} shipping to norway`)), BigInt(batch + 1));
      }
      await store.commit('p', [entry(30_001, 'small', 'refund please'), entry(30_002, 'small', 'where is my order'), entry(30_003, 'small', 'Refunded order, thanks')], 5n);
      const admin = new pg.Client({ connectionString: db.url });
      await admin.connect();
      await admin.query('ANALYZE');
      await admin.end();
      const ids = async (scope: string, text: string, limit?: number) => (await store.search('entries', { scope, text, limit })).items.map((h) => h.doc.id);
      expect(await ids('small', 'refund order')).toEqual(['e30003']);
      expect(await ids('small', 'order')).toEqual(['e30003', 'e30002']);
      expect(await ids('big', 'refund norway', 3)).toEqual(['e20000', 'e19999', 'e19998']);
      for (const [scope, text] of [['small', 'refund order'], ['small', 'order'], ['small', 'refund ord'], ['big', 'refund norway'], ['big', 'order']] as const) {
        const plan = await store.explainSearch('entries', { scope, text });
        expect(plan, text).not.toMatch(/Seq Scan/);
        // Every read of the words names the scope in its index condition.
        const wordScans = plan.split('\n').filter((line) => /Scan.* on \S+__words/.test(line));
        expect(wordScans.length, text).toBeGreaterThan(0);
        expect(plan.match(/Index Cond: \(\(scope = /g)?.length, text).toBe(wordScans.length);
      }
    }, 120_000);

    it('orders numbers, booleans, null and strings as the port does, and finds them by equality', async () => {
      await reset();
      const store = await open();
      await store.ensureCollections([{ name: 'values', indexes: ['v'] }]);
      const values = [-1e300, -2.5, -1, 0, 1e-300, 0.5, 1, 2, 10, 1e300, null, 'B', 'a', '', 'é', 'z'];
      await store.commit('p', values.map((v, i) => ({ kind: 'put' as const, collection: 'values', doc: { id: `v${String(i).padStart(2, '0')}`, v } })), 1n);
      await store.commit('p', [{ kind: 'put', collection: 'values', doc: { id: 'missing' } }], 2n);
      const asc = (await store.find<Doc & { v?: unknown }>('values', { orderBy: [{ field: 'v', direction: 'asc' }], limit: 100 })).items.map((d) => d.v ?? null);
      expect(asc).toEqual([null, null, -1e300, -2.5, -1, 0, 1e-300, 0.5, 1, 2, 10, 1e300, '', 'B', 'a', 'z', 'é']);
      for (const v of values.filter((x) => x !== null)) expect(await store.count('values', { v })).toBe(1);
      expect(await store.count('values', { v: null })).toBe(2);
    });

    it('stores text PostgreSQL cannot hold (U+0000, a lone surrogate) as U+FFFD instead of failing the projection', async () => {
      await reset();
      const store = await open();
      await store.ensureCollections([{ name: 'texts', indexes: ['k'] }]);
      await store.commit('p', [{ kind: 'put', collection: 'texts', doc: { id: 'x', k: 'a\u0000b', t: 'c\uD800d' } }], 1n);
      expect(await store.get('texts', 'x')).toEqual({ id: 'x', k: 'a\uFFFDb', t: 'c\uFFFDd' });
      expect(await store.count('texts', { k: 'a\u0000b' })).toBe(1);
    });

    it('never shows the connection string password in an error', async () => {
      const url = new URL(db.url);
      url.username = 'nobody_here';
      url.password = 's3cret-pa55';
      url.port = '1';
      const failure = await PgReadStore.connect({ connectionString: url.toString() }).then(
        () => null,
        (err: unknown) => err as Error,
      );
      expect(failure).toBeInstanceOf(Error);
      expect(`${failure!.message} ${failure!.stack} ${JSON.stringify(failure)}`).not.toContain('s3cret-pa55');
      expect(failure!.message).toMatch(/nobody_here/);
      const malformed = await PgReadStore.connect({ connectionString: 'postgres://u:s3cret-pa55@[bad' }).then(
        () => null,
        (err: unknown) => err as Error,
      );
      expect(malformed).toBeInstanceOf(Error);
      expect(`${malformed!.message} ${malformed!.stack} ${JSON.stringify(malformed)}`).not.toContain('s3cret-pa55');
    }, 30_000);
  });
});
