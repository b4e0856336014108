/**
 * Event store benchmark: the SQLite adapter against plain better-sqlite3 on the same machine, in the same run.
 *
 *   npm run bench:store                    (tsx bench/store.ts)
 *   BENCH_SCALE=0.25 npm run bench:store   a quicker, smaller run
 *
 * All files: WAL, synchronous=FULL (durable at commit). fsync latency on a shared disk moves a lot from one
 * second to the next, so adapter and baselines are measured alternately (rounds / interleaved samples) and
 * medians are reported.
 *
 * (a) append throughput: 8 concurrent writers (async loops), each appending one event at a time to its own
 *     stream with an exact expected revision; an event counts once its append has resolved (committed).
 *     Baselines, same rows: bare table (same columns, rowid key only) with (a1) one commit per row and
 *     (a2) as many rows per commit as the adapter's group commit averaged; (a3) the adapter's own schema
 *     (UNIQUE id, UNIQUE(stream, revision), AUTOINCREMENT) with plain grouped INSERTs, no checks.
 * (b) single-append latency, one writer; each adapter append is followed by one bare INSERT+commit.
 * (c) replay: readAll in pages of 1000 over the whole file, decoded events; baseline: one plain SELECT of
 *     the same columns over the same table, rows not decoded.
 *
 * Then, in the same run, the PostgreSQL adapter on the local server (a fresh database, dropped after; PG_TEST_URL
 * names another server; skipped with one line when none answers), its commits durable (synchronous_commit=on):
 * (p1) one writer, one event per append: appends/s and latency p50/p99; (p2) 8 concurrent writers as in (a)
 * (group commit); (p3) appends of 100 events: events/s; (p4) replay of the same number of events as (c), readAll
 * in pages of 1000, decoded; baseline: one plain SELECT of the same rows (driver-parsed, not decoded).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import type { NewEvent } from '../src/ports/eventStore.js';
import { PgEventStore } from '../src/infrastructure/postgres/pgEventStore.js';
import { SqliteEventStore } from '../src/infrastructure/sqlite/sqliteEventStore.js';
import { createTestDatabase, postgresTarget } from '../test/support/postgres.js';

const scale = Number(process.env.BENCH_SCALE ?? 1);
const WRITERS = 8;
const ROUNDS = 7;
const APPENDS_PER_WRITER = Math.round(1500 * scale);
const BASELINE_ROW_COMMITS = Math.round(800 * scale);
const LATENCY_SAMPLES = Math.round(3000 * scale);
const REPLAY_TARGET = Math.round(200_000 * scale);
const REPLAY_ROUNDS = 3;
const COLUMNS = 'position, id, stream, revision, type, data, metadata, created_at';

const dir = mkdtempSync(join(tmpdir(), 'bench-store-'));
const storeFile = join(dir, 'events.sqlite');

const text = 'Hello, I would like to know whether my order has shipped and when it will arrive. Thanks! '.repeat(2);
function makeEvent(stream: string, i: number): NewEvent {
  return {
    id: randomUUID(),
    type: 'MessageReceived',
    data: { conversationId: stream, messageId: `m-${i}`, platform: 'telegram', text, receivedAt: new Date().toISOString() },
    metadata: { companyId: 'company-1', correlationId: randomUUID(), causationId: randomUUID(), actor: 'platform' },
  };
}
type Row = [string, string, bigint, string, string, string, string];
const toRow = (stream: string, revision: bigint, e: NewEvent): Row => [
  e.id,
  stream,
  revision,
  e.type,
  JSON.stringify(e.data),
  JSON.stringify(e.metadata ?? {}),
  new Date().toISOString(),
];

const median = (xs: number[]) => percentile([...xs].sort((a, b) => a - b), 50);
function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

function openDurable(file: string, ddl: string): { db: Database.Database; insert: Database.Statement<Row> } {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec(ddl);
  return {
    db,
    insert: db.prepare('INSERT INTO t (id, stream, revision, type, data, metadata, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)'),
  };
}
const openBare = () =>
  openDurable(
    join(dir, 'bare.sqlite'),
    `CREATE TABLE t (position INTEGER PRIMARY KEY, id TEXT, stream TEXT, revision INTEGER, type TEXT,
                     data TEXT, metadata TEXT, created_at TEXT)`,
  );
const openSchemaTwin = () =>
  openDurable(
    join(dir, 'schema.sqlite'),
    `CREATE TABLE t (position INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, stream TEXT NOT NULL,
                     revision INTEGER NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL, metadata TEXT NOT NULL,
                     created_at TEXT NOT NULL, UNIQUE (stream, revision))`,
  );

async function main() {
  console.log(`event store bench: ${storeFile} (scale ${scale}, node ${process.version})`);
  const store = new SqliteEventStore(storeFile);
  const bare = openBare();
  const schema = openSchemaTwin();
  const grouped = (target: { db: Database.Database; insert: Database.Statement<Row> }) =>
    target.db.transaction((rows: Row[]) => {
      for (const row of rows) target.insert.run(...row);
    });
  const bareMany = grouped(bare);
  const schemaMany = grouped(schema);

  // (a)
  const rounds: { rate: number; perCommit: number; bareRow: number; bareGroup: number; schemaGroup: number }[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const before = { ...store.commitStats };
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: WRITERS }, async (_, w) => {
        const stream = `conversation-bench-r${round}-${w}`;
        for (let i = 0; i < APPENDS_PER_WRITER; i++) {
          await store.append(stream, [makeEvent(stream, i)], i === 0 ? 'no_stream' : BigInt(i - 1));
        }
      }),
    );
    const rate = (WRITERS * APPENDS_PER_WRITER) / ((performance.now() - t0) / 1000);
    const perCommit = (store.commitStats.appends - before.appends) / (store.commitStats.commits - before.commits);
    const group = Math.max(1, Math.round(perCommit));
    const rowsFor = (n: number, tag: string) =>
      Array.from({ length: n }, (_, i) => {
        const stream = `${tag}-r${round}-${i % WRITERS}`;
        return toRow(stream, BigInt(Math.floor(i / WRITERS)), makeEvent(stream, i));
      });

    const rowsA = rowsFor(BASELINE_ROW_COMMITS, 'row');
    let t = performance.now();
    for (const row of rowsA) bare.insert.run(...row);
    const bareRow = rowsA.length / ((performance.now() - t) / 1000);

    const rowsB = rowsFor(WRITERS * APPENDS_PER_WRITER, 'bare');
    t = performance.now();
    for (let i = 0; i < rowsB.length; i += group) bareMany.immediate(rowsB.slice(i, i + group));
    const bareGroup = rowsB.length / ((performance.now() - t) / 1000);

    const rowsC = rowsFor(WRITERS * APPENDS_PER_WRITER, 'schema');
    t = performance.now();
    for (let i = 0; i < rowsC.length; i += group) schemaMany.immediate(rowsC.slice(i, i + group));
    const schemaGroup = rowsC.length / ((performance.now() - t) / 1000);

    rounds.push({ rate, perCommit, bareRow, bareGroup, schemaGroup });
    console.log(
      `(a) round ${round + 1}/${ROUNDS}: adapter ${fmt(rate)} events/s (${fmt(perCommit, 1)} appends/commit); ` +
        `bare 1 row/commit ${fmt(bareRow)}/s; bare ${group} rows/commit ${fmt(bareGroup)}/s; ` +
        `same schema ${group} rows/commit ${fmt(schemaGroup)}/s`,
    );
  }
  const a = {
    rate: median(rounds.map((r) => r.rate)),
    perCommit: median(rounds.map((r) => r.perCommit)),
    bareRow: median(rounds.map((r) => r.bareRow)),
    bareGroup: median(rounds.map((r) => r.bareGroup)),
    schemaGroup: median(rounds.map((r) => r.schemaGroup)),
    // Ratios per round (same disk weather), then their median.
    vsRow: median(rounds.map((r) => r.rate / r.bareRow)),
    vsGroup: median(rounds.map((r) => r.rate / r.bareGroup)),
    vsSchema: median(rounds.map((r) => r.rate / r.schemaGroup)),
  };
  const group = Math.max(1, Math.round(a.perCommit));

  // (b) interleaved: adapter append, then bare insert+commit, LATENCY_SAMPLES times.
  const latencies: number[] = [];
  const bareLatencies: number[] = [];
  const latencyStream = 'conversation-bench-latency';
  for (let i = 0; i < LATENCY_SAMPLES; i++) {
    const event = makeEvent(latencyStream, i);
    let s = performance.now();
    await store.append(latencyStream, [event], i === 0 ? 'no_stream' : BigInt(i - 1));
    latencies.push(performance.now() - s);
    const row = toRow('latency', BigInt(i), makeEvent('latency', i));
    s = performance.now();
    bare.insert.run(...row);
    bareLatencies.push(performance.now() - s);
  }
  latencies.sort((x, y) => x - y);
  bareLatencies.sort((x, y) => x - y);
  bare.db.close();
  schema.db.close();

  // (c) fill up to REPLAY_TARGET events (100 per append, to get there fast), then replay, alternating with
  // the plain scan.
  let count = Number((await store.headPosition()) ?? 0n);
  for (let s = 0; count < REPLAY_TARGET; s++) {
    const stream = `conversation-fill-${s}`;
    const n = Math.min(100, REPLAY_TARGET - count);
    await store.append(stream, Array.from({ length: n }, (_, i) => makeEvent(stream, i)), 'no_stream');
    count += n;
  }
  await store.close();

  const reader = new SqliteEventStore(storeFile);
  const raw = new Database(storeFile, { readonly: true });
  raw.defaultSafeIntegers(true);
  const scan = raw.prepare(`SELECT ${COLUMNS} FROM events ORDER BY position`).raw(true);
  const replays: { replay: number; scan: number }[] = [];
  let replayed = 0;
  for (let k = 0; k < REPLAY_ROUNDS; k++) {
    let t = performance.now();
    replayed = 0;
    let after: bigint | null = null;
    for (;;) {
      const page = await reader.readAll({ after, maxCount: 1000 });
      if (page.length === 0) break;
      replayed += page.length;
      after = page.at(-1)!.position;
    }
    const replay = replayed / ((performance.now() - t) / 1000);
    t = performance.now();
    let scanned = 0;
    for (const _row of scan.iterate()) scanned++;
    replays.push({ replay, scan: scanned / ((performance.now() - t) / 1000) });
  }
  raw.close();
  await reader.close();
  const c = {
    replay: median(replays.map((r) => r.replay)),
    scan: median(replays.map((r) => r.scan)),
    ratio: median(replays.map((r) => r.replay / r.scan)),
  };

  const p = (xs: number[], q: number) => fmt(percentile(xs, q), 3);
  const table = [
    {
      metric: '(a) append, 8 writers, events/s committed',
      adapter: fmt(a.rate),
      baseline: `${fmt(a.bareRow)} bare, 1 commit/row`,
      ratio: `${fmt(a.vsRow, 2)}x`,
      goal: '≥ 10,000/s',
      ok: a.rate >= 10_000,
    },
    {
      metric: `(a) group commit: ${fmt(a.perCommit, 1)} appends/commit`,
      adapter: fmt(a.rate),
      baseline: `${fmt(a.bareGroup)} bare, ${group} rows/commit`,
      ratio: `${fmt(a.vsGroup, 2)}x`,
      goal: '',
      ok: true,
    },
    {
      metric: '(a) vs same schema, plain inserts',
      adapter: fmt(a.rate),
      baseline: `${fmt(a.schemaGroup)} schema, ${group} rows/commit`,
      ratio: `${fmt(a.vsSchema, 2)}x`,
      goal: '',
      ok: true,
    },
    {
      metric: '(b) 1 append latency p50 / p99 ms',
      adapter: `${p(latencies, 50)} / ${p(latencies, 99)}`,
      baseline: `${p(bareLatencies, 50)} / ${p(bareLatencies, 99)} bare insert+commit`,
      ratio: `${fmt(percentile(latencies, 99) / percentile(bareLatencies, 99), 2)}x p99`,
      goal: 'p99 ≤ 5 ms',
      ok: percentile(latencies, 99) <= 5,
    },
    {
      metric: `(c) replay ${fmt(replayed)} events, events/s`,
      adapter: fmt(c.replay),
      baseline: `${fmt(c.scan)} plain SELECT, undecoded`,
      ratio: `${fmt(c.ratio, 2)}x`,
      goal: '≥ 100,000/s',
      ok: c.replay >= 100_000,
    },
  ];
  console.table(table);
  console.log(
    `(a) medians of ${ROUNDS} rounds of ${fmt(WRITERS * APPENDS_PER_WRITER)} appends; ` +
      `(b) ${fmt(LATENCY_SAMPLES)} samples, max ${fmt(latencies.at(-1)!, 2)} ms (bare max ${fmt(bareLatencies.at(-1)!, 2)} ms); ` +
      `(c) medians of ${REPLAY_ROUNDS} replays; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} on ${cpus().length} cores`,
  );
  rmSync(dir, { recursive: true, force: true });
  await postgres();
  if (table.some((r) => !r.ok)) process.exitCode = 1;
}

async function postgres(): Promise<void> {
  const target = await postgresTarget();
  if (target.mode === 'skip') return;
  const db = await createTestDatabase('bench_store');
  console.log(`\nPostgreSQL event store bench: database ${db.name}`);
  const store = await PgEventStore.open(db.url, { poolSize: 4 });
  try {
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    const settings = await admin.query<{ name: string; setting: string }>(
      "SELECT name, setting FROM pg_settings WHERE name IN ('synchronous_commit', 'fsync', 'wal_sync_method', 'shared_buffers') ORDER BY name",
    );
    const server = (await admin.query<{ server_version: string }>('SHOW server_version')).rows[0]!.server_version;
    console.log(`PostgreSQL ${server}; ${settings.rows.map((r) => `${r.name}=${r.setting}`).join(', ')}`);

    // (p1) one writer
    const latencies: number[] = [];
    const single = 'conversation-pg-single';
    let t = performance.now();
    for (let i = 0; i < Math.round(LATENCY_SAMPLES / 3); i++) {
      const s = performance.now();
      await store.append(single, [makeEvent(single, i)], i === 0 ? 'no_stream' : BigInt(i - 1));
      latencies.push(performance.now() - s);
    }
    const singleRate = latencies.length / ((performance.now() - t) / 1000);
    latencies.sort((x, y) => x - y);

    // (p2) 8 writers, group commit
    const rates: number[] = [];
    const perCommit: number[] = [];
    for (let round = 0; round < 3; round++) {
      const before = { ...store.commitStats };
      t = performance.now();
      const perWriter = Math.round(APPENDS_PER_WRITER / 3);
      await Promise.all(
        Array.from({ length: WRITERS }, async (_, w) => {
          const stream = `conversation-pg-r${round}-${w}`;
          for (let i = 0; i < perWriter; i++) await store.append(stream, [makeEvent(stream, i)], i === 0 ? 'no_stream' : BigInt(i - 1));
        }),
      );
      rates.push((WRITERS * perWriter) / ((performance.now() - t) / 1000));
      perCommit.push((store.commitStats.appends - before.appends) / (store.commitStats.commits - before.commits));
      console.log(`(p2) round ${round + 1}/3: ${fmt(rates.at(-1)!)} events/s (${fmt(perCommit.at(-1)!, 1)} appends/commit)`);
    }

    // (p3) 100 events per append, up to REPLAY_TARGET events in the store
    let count = Number(await admin.query('SELECT count(*) FROM es_events').then((r) => r.rows[0].count));
    const fillStart = count;
    t = performance.now();
    for (let s = 0; count < REPLAY_TARGET; s++) {
      const stream = `conversation-pg-fill-${s}`;
      const n = Math.min(100, REPLAY_TARGET - count);
      await store.append(stream, Array.from({ length: n }, (_, i) => makeEvent(stream, i)), 'no_stream');
      count += n;
    }
    const batchedRate = (count - fillStart) / ((performance.now() - t) / 1000);

    // (p4) replay, alternating with a plain SELECT of the same rows
    const replays: { replay: number; scan: number }[] = [];
    let replayed = 0;
    for (let k = 0; k < REPLAY_ROUNDS; k++) {
      t = performance.now();
      replayed = 0;
      let after: bigint | null = null;
      for (;;) {
        const page = await store.readAll({ after, maxCount: 1000 });
        if (page.length === 0) break;
        replayed += page.length;
        after = page.at(-1)!.position;
      }
      const replay = replayed / ((performance.now() - t) / 1000);
      t = performance.now();
      const rows = await admin.query('SELECT position, id, stream, revision, type, data, metadata, created_at FROM es_events ORDER BY position');
      replays.push({ replay, scan: rows.rowCount! / ((performance.now() - t) / 1000) });
    }
    await admin.end();
    const p = (q: number) => fmt(percentile(latencies, q), 3);
    console.table([
      { metric: '(p1) 1 writer, 1 event per append: appends/s', postgres: fmt(singleRate), detail: `latency p50 / p99 ${p(50)} / ${p(99)} ms` },
      { metric: '(p2) 8 writers, 1 event per append: events/s', postgres: fmt(median(rates)), detail: `median of 3 rounds, ${fmt(median(perCommit), 1)} appends/commit` },
      { metric: '(p3) 1 writer, 100 events per append: events/s', postgres: fmt(batchedRate), detail: `${fmt(count - fillStart)} events` },
      {
        metric: `(p4) replay ${fmt(replayed)} events: events/s`,
        postgres: fmt(median(replays.map((r) => r.replay))),
        detail: `plain SELECT ${fmt(median(replays.map((r) => r.scan)))}/s (${fmt(median(replays.map((r) => r.replay / r.scan)), 2)}x)`,
      },
    ]);
    console.log(`load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} on ${cpus().length} cores`);
  } finally {
    await store.close();
    await db.drop();
  }
}

main().catch((err) => {
  console.error(err);
  rmSync(dir, { recursive: true, force: true });
  process.exit(1);
});
