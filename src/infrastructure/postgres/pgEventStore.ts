import { EventEmitter } from 'node:events';
import pg from 'pg';
import type {
  AppendResult,
  EventMetadata,
  EventStore,
  ExpectedRevision,
  NewEvent,
  ReadAllOptions,
  ReadStreamOptions,
  RecordedEvent,
  SubscribeOptions,
  Subscription,
} from '../../ports/eventStore.js';
import { EventIdConflictError, StoreBusyError, WrongExpectedRevisionError } from '../../ports/errors.js';
import type { Logger } from '../../ports/logger.js';
import { checkExpectedRevision, pollingSubscription } from '../eventStoreSupport.js';
import { migrate, type Migration } from './migrations.js';
import { openPgPool, redactConnectionString } from './pool.js';

/**
 * The PostgreSQL event store.
 *
 * Streams: `es_streams` holds each stream's current revision, so an append checks and moves it with one indexed
 * row write (never a count or max over events): `UPDATE … WHERE revision = expected` for an exact revision, an
 * insert that must not conflict for 'no_stream', an upsert for 'any'; UNIQUE (stream, revision) on `es_events`
 * backs it, and UNIQUE (id) makes event ids unique in the whole store.
 *
 * Global positions without skipping a late commit: positions come from an identity sequence, and concurrent
 * transactions may commit in another order than they took their numbers. A reader that has delivered position
 * 7 must never later find a 6 that was still uncommitted when it read. So every append transaction first takes
 * one transaction-level advisory lock (POSITION_LOCK_KEY) and holds it to its commit:
 * - numbers are only taken under the lock, so they are handed out in the order the lock is granted;
 * - PostgreSQL marks a transaction committed (visible to new snapshots) before it releases the transaction's
 *   locks, so the next holder can only take a number after every smaller number is visible, or rolled back
 *   (then it is a gap forever: sequences never hand a number out twice).
 * Hence, whenever a statement sees position p, it sees every committed position below p: each read is a
 * prefix of the final order, and a reader resuming after the last position it saw misses nothing. Readers take
 * no lock. The price is one append transaction at a time per database; the NOTIFY each one sends serialises the
 * commits of notifying transactions in PostgreSQL anyway. Appends of one store therefore share transactions
 * (group commit, see startCommitter), each batch one call of the function es_append: one round trip, one
 * transaction, whatever the batch holds (bench/README.md measures it). Reading only below the oldest running
 * transaction (pg_snapshot_xmin) keeps writers parallel but is not enough with position order on its own (a
 * transaction with a larger xid may hold a smaller position), and it stalls every reader behind any long
 * transaction of the whole server; see docs/architecture.md.
 *
 * Subscriptions: an append NOTIFYs `es_appended` inside its transaction (delivered on commit); one dedicated
 * connection per store LISTENs and wakes the subscriptions, and reconnects when it is lost. Polling every
 * pollMs stays the safety net, and a read failing on a lost connection is retried (pollingSubscription).
 */
export interface PgEventStoreOptions {
  logger?: Logger;
  /** How often subscriptions look for events when no notification came. Default 1000 ms. */
  pollMs?: number;
  /** Shown in pg_stat_activity (the listening connection adds ":listen"). */
  applicationName?: string;
  /** Pool connections for appends and reads. Default 10. */
  poolSize?: number;
  /**
   * How long an append transaction waits for the position lock before its appends fail with StoreBusyError
   * (nothing written, safe to retry). Default 10,000 ms.
   */
  busyTimeoutMs?: number;
  /**
   * For tests only: awaited inside each append transaction after its events are inserted and before it
   * commits, to widen the window in which concurrent transactions could commit out of position order.
   */
  beforeCommit?: () => Promise<void>;
}

const COMPONENT = 'eventstore';
const CHANNEL = 'es_appended';
/** Serialises position assignment with commit (see above); one value for the whole database. */
const POSITION_LOCK_KEY = 0x6573_706f; // 'espo'
/** A subscription's reads failing on a lost connection are retried this long before onError. */
const READ_RETRY_FOR_MS = 60_000;
const LISTEN_RETRY_MS = { first: 100, max: 5000 };
/** SQLSTATE of a lock_timeout expiring. */
const LOCK_NOT_AVAILABLE = '55P03';
/** Most appends one transaction carries (group commit). */
const MAX_APPENDS_PER_COMMIT = 256;

const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'event store: streams, events, write probe',
    sql: `
      CREATE TABLE es_streams (
        -- "C": byte order and byte equality, no locale rules in any comparison.
        stream   text COLLATE "C" PRIMARY KEY,
        revision bigint NOT NULL
      );
      CREATE TABLE es_events (
        position   bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        id         text NOT NULL,
        stream     text COLLATE "C" NOT NULL,
        revision   bigint NOT NULL,
        type       text COLLATE "C" NOT NULL,
        -- json, not jsonb: kept as written (key order, and strings holding \\u0000, which jsonb refuses).
        data       json NOT NULL,
        metadata   json NOT NULL,
        created_at timestamptz NOT NULL,
        CONSTRAINT es_events_id_unique UNIQUE (id),
        CONSTRAINT es_events_stream_revision_unique UNIQUE (stream, revision)
      );
      -- readAll filtered by event type walks (type, position) from the cursor.
      CREATE INDEX es_events_type_position ON es_events (type, position);
      -- Scratch space of probeWrite(): one row, rewritten by each probe.
      CREATE TABLE es_write_probe (id integer PRIMARY KEY, probed_at timestamptz NOT NULL);

      -- A batch of appends in one call (one round trip, one transaction). Append i is stream[i] at expected[i]
      -- ('no_stream', 'any', 'stream_exists' or a revision) with counts[i] events, taken in order from the flat
      -- arrays of ids, types, data and metadata. First the position lock (see pgEventStore.ts: it is what keeps
      -- readers from passing a late commit), waiting at most lock_timeout_ms. Then per append: an id already
      -- stored refuses it ('id-conflict'), a revision not as expected refuses it ('revision-mismatch', with the
      -- current revision), else the stream's revision moves by the count and the events are inserted in order
      -- ('ok', new revision, last position). A refused append writes nothing. Every statement here is an index
      -- lookup or write: nothing counts or scans events.
      CREATE FUNCTION es_append(
        streams text[], expected text[], counts integer[],
        ids text[], types text[], datas text[], metadatas text[],
        lock_key bigint, lock_timeout_ms integer)
      RETURNS TABLE (o_outcome text, o_revision bigint, o_position bigint)
      LANGUAGE plpgsql
      -- Every statement here has its index; the plans are cached per connection, and a plan made while the
      -- table had no statistics yet (a new store, before autovacuum analysed it) scanned the whole table: the
      -- appends slowed down as the store grew (8 writers: 12 → 50 ms per commit over 6,000 events).
      SET enable_seqscan = off
      AS $fn$
      DECLARE
        i integer;
        start_at integer := 1;
        n integer;
        current_revision bigint;
        stamped_at timestamptz;
        wrote boolean := false;
        position_sequence regclass := pg_get_serial_sequence('es_events', 'position')::regclass;
      BEGIN
        PERFORM set_config('lock_timeout', lock_timeout_ms::text, true);
        PERFORM pg_advisory_xact_lock(lock_key);
        stamped_at := date_trunc('milliseconds', clock_timestamp());
        FOR i IN 1 .. coalesce(array_length(streams, 1), 0) LOOP
          n := counts[i];
          o_revision := NULL;
          o_position := NULL;
          SELECT s.revision INTO current_revision FROM es_streams s WHERE s.stream = streams[i];
          IF EXISTS (SELECT 1 FROM es_events e WHERE e.id = ANY (ids[start_at : start_at + n - 1])) THEN
            o_outcome := 'id-conflict';
          ELSIF expected[i] = 'any'
             OR (expected[i] = 'no_stream' AND current_revision IS NULL)
             OR (expected[i] = 'stream_exists' AND current_revision IS NOT NULL)
             OR (current_revision IS NOT NULL AND expected[i] = current_revision::text) THEN
            IF current_revision IS NULL THEN
              INSERT INTO es_streams (stream, revision) VALUES (streams[i], n - 1);
            ELSE
              UPDATE es_streams s SET revision = current_revision + n WHERE s.stream = streams[i];
            END IF;
            INSERT INTO es_events (id, stream, revision, type, data, metadata, created_at)
              SELECT ids[start_at + k - 1], streams[i], coalesce(current_revision, -1) + k,
                     types[start_at + k - 1], datas[start_at + k - 1]::json, metadatas[start_at + k - 1]::json, stamped_at
              FROM generate_series(1, n) AS k
              ORDER BY k;
            o_outcome := 'ok';
            o_revision := coalesce(current_revision, -1) + n;
            -- The last number this session took: the append's last event, inserted last.
            o_position := currval(position_sequence);
            wrote := true;
          ELSE
            o_outcome := 'revision-mismatch';
            o_revision := current_revision;
          END IF;
          start_at := start_at + n;
          RETURN NEXT;
        END LOOP;
        IF wrote THEN
          PERFORM pg_notify('es_appended', '');
        END IF;
      END
      $fn$;
    `,
  },
];

const COLUMNS = `position, id, stream, revision, type, data, metadata,
  to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at`;

interface EventRow {
  position: string;
  id: string;
  stream: string;
  revision: string;
  type: string;
  data: unknown;
  metadata: EventMetadata;
  created_at: string;
}

/** SQLSTATE classes and driver messages of a lost or refused connection: worth another try. */
export function isTransientPgError(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  if (code.startsWith('08') || code.startsWith('57P') || code === '53300') return true; // connection, shutdown, too many connections
  if (['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN'].includes(code)) return true;
  const message = typeof e?.message === 'string' ? e.message : '';
  return /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(message);
}

export class PgEventStore implements EventStore {
  private readonly pool: pg.Pool;
  private readonly appended = new EventEmitter().setMaxListeners(0);
  private readonly subscriptions = new Set<Subscription>();
  private readonly pollMs: number;
  private readonly logger: Logger | undefined;
  private readonly beforeCommit: (() => Promise<void>) | undefined;
  private readonly busyTimeoutMs: number;
  private listener: Listener | null = null;
  private readonly queue: PendingAppend[] = [];
  private committer: Promise<void> | null = null;
  private closed = false;
  /** Group-commit counters (benchmarks, metrics): transactions committed, appends they carried. */
  readonly commitStats = { commits: 0, appends: 0 };

  private constructor(
    private readonly connectionString: string,
    private readonly options: PgEventStoreOptions,
  ) {
    this.pollMs = options.pollMs ?? 1000;
    this.logger = options.logger;
    this.beforeCommit = options.beforeCommit;
    this.busyTimeoutMs = Math.max(1, Math.round(options.busyTimeoutMs ?? 10_000));
    this.pool = openPgPool({
      connectionString,
      max: options.poolSize ?? 10,
      applicationName: options.applicationName ?? 'messaging-agent-service:eventstore',
      ...(options.logger ? { logger: options.logger } : {}),
      // Every statement of the store is an index probe or an ordered index walk from a cursor. Left to statistics
      // (none on a new store until autovacuum analyses it, and none at all where autovacuum is off), the planner
      // chose scans of a whole table, or of every event of a type, then a sort: a cost growing with the store.
      settings: { enable_seqscan: 'off', enable_bitmapscan: 'off' },
    });
  }

  static async open(connectionString: string, options: PgEventStoreOptions = {}): Promise<PgEventStore> {
    const store = new PgEventStore(connectionString, options);
    try {
      await migrate(store.pool, COMPONENT, MIGRATIONS);
    } catch (err) {
      await store.pool.end().catch(() => undefined);
      throw withoutSecrets(err, connectionString, 'the event store could not migrate its schema');
    }
    return store;
  }

  async append(stream: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    this.assertOpen();
    const rows = events.map(encode);
    const ids = new Set<string>();
    for (const row of rows) {
      if (ids.has(row.id)) throw new EventIdConflictError(stream, String(expected), row.id, null);
      ids.add(row.id);
    }
    if (rows.length === 0) return this.emptyAppend(stream, expected);

    const outcome = await new Promise<Outcome>((resolve, reject) => {
      this.queue.push({ stream, rows, expected, resolve, reject });
      this.startCommitter();
    });
    if (typeof outcome === 'object') return outcome;
    // A refused append may be a retry of one already stored: that answers like the original did.
    const retry = await this.findRetry(stream, rows);
    if (retry) return retry;
    if (outcome === 'id-conflict') {
      const taken = await this.query<{ id: string; stream: string }>('SELECT id, stream FROM es_events WHERE id = ANY($1::text[]) LIMIT 1', [[...ids]]);
      const hit = taken.rows[0];
      throw new EventIdConflictError(stream, String(expected), hit?.id ?? rows[0]!.id, hit?.stream ?? null);
    }
    throw new WrongExpectedRevisionError(stream, String(expected), await this.actualRevision(stream));
  }

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    this.assertOpen();
    if (options.maxCount !== undefined && options.maxCount <= 0) return [];
    const limit = options.maxCount ?? null; // LIMIT NULL = no limit
    const result =
      options.direction === 'backwards'
        ? await this.query<EventRow>(
            `SELECT ${COLUMNS} FROM es_events WHERE stream = $1 AND revision <= $2 ORDER BY revision DESC LIMIT $3`,
            [stream, String(options.fromRevision ?? 9223372036854775807n), limit],
          )
        : await this.query<EventRow>(`SELECT ${COLUMNS} FROM es_events WHERE stream = $1 AND revision >= $2 ORDER BY revision LIMIT $3`, [
            stream,
            String(options.fromRevision ?? 0n),
            limit,
          ]);
    return result.rows.map(decode);
  }

  /**
   * In position order. Every read is a prefix of the final order (see the class comment), so paging with
   * `after` = the last position seen visits every event once. The plan is fixed by the query's shape, not left to
   * statistics (a new store has none until it is analysed, and a plan that bitmap-scans a stream prefix's whole
   * history, then sorts, costs what the store holds at every poll):
   * - no type filter: the primary key walked from the cursor, prefixes tested on each row (as SQLite does), so a
   *   page costs the events after the cursor up to maxCount matches;
   * - event types: one branch per type walking (type, position) from the cursor, at most maxCount rows each,
   *   merged by position: a page costs maxCount × types index entries, whatever the store holds.
   * The prefix test `left(stream, n) = prefix` is exact, case-sensitive, wildcard-free, and no index matches it.
   */
  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    this.assertOpen();
    const prefixes = options.filter?.streamPrefixes;
    const types = options.filter?.eventTypes;
    if (prefixes?.length === 0 || types?.length === 0 || (options.maxCount !== undefined && options.maxCount <= 0)) return [];
    const params: unknown[] = [String(options.after ?? -1n), options.maxCount ?? null];
    const where = ['position > $1'];
    if (prefixes) {
      const terms = prefixes.map((p) => {
        params.push(p);
        return `left(stream, ${[...p].length}) = $${params.length}`;
      });
      where.push(`(${terms.join(' OR ')})`);
    }
    if (!types) {
      const result = await this.query<EventRow>(`SELECT ${COLUMNS} FROM es_events WHERE ${where.join(' AND ')} ORDER BY position LIMIT $2`, params);
      return result.rows.map(decode);
    }
    const branches = [...new Set(types)].map((t) => {
      params.push(t);
      return `(SELECT * FROM es_events WHERE type = $${params.length} AND ${where.join(' AND ')} ORDER BY position LIMIT $2)`;
    });
    const result = await this.query<EventRow>(
      `SELECT ${COLUMNS} FROM (${branches.join(' UNION ALL ')}) AS matching ORDER BY position LIMIT $2`,
      params,
    );
    return result.rows.map(decode);
  }

  subscribe(options: SubscribeOptions, handler: (events: RecordedEvent[]) => Promise<void>): Subscription {
    this.assertOpen();
    this.listener ??= new Listener(this.connectionString, this.appended, this.options.applicationName, this.logger);
    const inner = pollingSubscription(this, this.appended, options, handler, this.pollMs, {
      isTransient: isTransientPgError,
      forMs: READ_RETRY_FOR_MS,
    });
    const subscription: Subscription = {
      stop: async () => {
        this.subscriptions.delete(subscription);
        await inner.stop();
      },
    };
    this.subscriptions.add(subscription);
    return subscription;
  }

  async headPosition(): Promise<bigint | null> {
    this.assertOpen();
    // The primary key's last entry: one index probe however big the table.
    const result = await this.query<{ position: string }>('SELECT position FROM es_events ORDER BY position DESC LIMIT 1');
    const row = result.rows[0];
    return row ? BigInt(row.position) : null;
  }

  /**
   * Throws when the database cannot commit a write now (read-only, disk full, unreachable): rewrites the one row
   * of es_write_probe and commits, so no event is appended. Used by readiness after a failed append.
   */
  async probeWrite(): Promise<void> {
    this.assertOpen();
    await this.query(
      `INSERT INTO es_write_probe (id, probed_at) VALUES (1, now()) ON CONFLICT (id) DO UPDATE SET probed_at = excluded.probed_at`,
    );
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.subscriptions].map((s) => s.stop()));
    // Appends already accepted are committed, not dropped.
    while (this.committer) await this.committer;
    await this.listener?.stop();
    await this.pool.end();
  }

  /**
   * One committer per store: while a transaction commits, new appends queue, and the next transaction carries all
   * of them (group commit). Transactions of all instances take the position lock one after the other anyway, and
   * each commit waits for its WAL flush, so batching is what lets appends/s exceed commits/s.
   */
  private startCommitter(): void {
    if (this.committer) return;
    this.committer = (async () => {
      // setImmediate first: every append issued in this turn of the event loop joins the first transaction.
      await new Promise((r) => setImmediate(r));
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, MAX_APPENDS_PER_COMMIT);
        // commit() settles every append itself; anything it throws still answers them, never leaves them waiting.
        await this.commit(batch).catch((err: unknown) => {
          for (const p of batch) p.reject(err);
        });
      }
    })().finally(() => {
      this.committer = null;
      if (this.queue.length > 0) this.startCommitter();
    });
  }

  /**
   * Commits a batch of appends in one transaction, one call of es_append: the position lock first (see the class
   * comment; taken before any stream row, so two transactions never wait for each other in opposite orders), then
   * each append, then NOTIFY. An append refused by its checks writes nothing and fails alone. An
   * unexpected error fails the transaction: a batch is then tried again one append per transaction, so only
   * the append that caused it fails.
   */
  private async commit(batch: PendingAppend[]): Promise<void> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      for (const p of batch) p.reject(this.surface(err));
      return;
    }
    let outcomes: Outcome[];
    try {
      if (this.beforeCommit) {
        await client.query('BEGIN');
        outcomes = await this.appendBatch(client, batch);
        await this.beforeCommit();
        await client.query('COMMIT');
      } else {
        // One statement, so one implicit transaction and one round trip for the whole batch.
        outcomes = await this.appendBatch(client, batch);
      }
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      // Unexpected here (refusals are outcomes, not errors): the connection is not reused.
      client.release(err instanceof Error ? err : new Error(String(err)));
      if ((err as { code?: unknown }).code === LOCK_NOT_AVAILABLE) {
        const busy = new StoreBusyError(this.busyTimeoutMs);
        for (const p of batch) p.reject(busy);
        return;
      }
      if (batch.length > 1 && !isTransientPgError(err)) {
        for (const p of batch) await this.commit([p]);
        return;
      }
      // A lost connection may have lost the COMMIT's answer too: a retry of the append is recognised as one.
      for (const p of batch) p.reject(this.surface(err));
      return;
    }
    client.release();
    this.commitStats.commits += 1;
    this.commitStats.appends += batch.length;
    batch.forEach((p, i) => p.resolve(outcomes[i]!));
    if (outcomes.some((o) => typeof o === 'object')) this.appended.emit('appended');
  }

  /** The batch as one call of es_append (see the migration): its outcomes, in the order of the batch. */
  private async appendBatch(client: pg.PoolClient, batch: PendingAppend[]): Promise<Outcome[]> {
    const rows = batch.flatMap((p) => p.rows);
    const result = await client.query<{ o_outcome: string; o_revision: string | null; o_position: string | null }>({
      // Named: prepared once per connection, so a batch skips parsing and planning.
      name: 'es_append',
      text: 'SELECT o_outcome, o_revision, o_position FROM es_append($1, $2, $3, $4, $5, $6, $7, $8, $9)',
      values: [
        batch.map((p) => p.stream),
        batch.map((p) => String(p.expected)),
        batch.map((p) => p.rows.length),
        rows.map((r) => r.id),
        rows.map((r) => r.type),
        rows.map((r) => r.data),
        rows.map((r) => r.metadata),
        POSITION_LOCK_KEY,
        this.busyTimeoutMs,
      ],
    });
    if (result.rows.length !== batch.length) throw new Error(`es_append answered ${result.rows.length} outcomes for ${batch.length} appends`);
    return result.rows.map((row): Outcome => {
      if (row.o_outcome === 'ok') return { nextRevision: BigInt(row.o_revision!), position: BigInt(row.o_position!) };
      return row.o_outcome === 'id-conflict' ? 'id-conflict' : 'revision-mismatch';
    });
  }

  private async emptyAppend(stream: string, expected: ExpectedRevision): Promise<AppendResult> {
    const current = await this.currentRevision(stream);
    checkExpectedRevision(stream, expected, current);
    return { nextRevision: current ?? -1n, position: (await this.headPosition()) ?? -1n };
  }

  /**
   * A retried append (the same ids, in order, stored consecutively in this stream, wherever) answers like the
   * original did: the first id's row, then the window of revisions it must start, both by index.
   */
  private async findRetry(stream: string, rows: EncodedEvent[]): Promise<AppendResult | null> {
    const stored = await this.query<{ id: string; revision: string; position: string }>(
      `SELECT e.id, e.revision, e.position
       FROM es_events f JOIN es_events e ON e.stream = f.stream AND e.revision BETWEEN f.revision AND f.revision + $3 - 1
       WHERE f.id = $1 AND f.stream = $2
       ORDER BY e.revision`,
      [rows[0]!.id, stream, rows.length],
    );
    if (stored.rows.length !== rows.length || stored.rows.some((s, i) => s.id !== rows[i]!.id)) return null;
    const last = stored.rows.at(-1)!;
    return { nextRevision: BigInt(last.revision), position: BigInt(last.position), duplicate: true };
  }

  private async currentRevision(stream: string): Promise<bigint | null> {
    const result = await this.query<{ revision: string }>('SELECT revision FROM es_streams WHERE stream = $1', [stream]);
    const row = result.rows[0];
    return row ? BigInt(row.revision) : null;
  }

  private async actualRevision(stream: string): Promise<string> {
    const current = await this.currentRevision(stream);
    return current === null ? 'no_stream' : String(current);
  }

  private async query<R extends pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<pg.QueryResult<R>> {
    try {
      return await this.pool.query<R>(sql, params);
    } catch (err) {
      throw this.surface(err);
    }
  }

  private surface(err: unknown): unknown {
    return withoutSecrets(err, this.connectionString, 'event store');
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('event store (PostgreSQL) is closed');
  }
}

export async function openPgEventStore(
  connectionString: string,
  options?: { logger?: Logger; pollMs?: number; applicationName?: string; poolSize?: number; busyTimeoutMs?: number },
): Promise<PgEventStore> {
  return PgEventStore.open(connectionString, options);
}

type Outcome = AppendResult | 'revision-mismatch' | 'id-conflict';

interface PendingAppend {
  stream: string;
  rows: EncodedEvent[];
  expected: ExpectedRevision;
  resolve(outcome: Outcome): void;
  reject(err: unknown): void;
}

interface EncodedEvent {
  id: string;
  type: string;
  data: string;
  metadata: string;
}

function encode(e: NewEvent): EncodedEvent {
  if (typeof e.id !== 'string' || e.id === '') throw new TypeError('event id must be a non-empty string');
  if (typeof e.type !== 'string' || e.type === '') throw new TypeError(`event ${e.id}: type must be a non-empty string`);
  return { id: e.id, type: e.type, data: JSON.stringify(e.data ?? null), metadata: JSON.stringify(e.metadata ?? {}) };
}

function decode(row: EventRow): RecordedEvent {
  return {
    position: BigInt(row.position),
    id: row.id,
    stream: row.stream,
    revision: BigInt(row.revision),
    type: row.type,
    data: row.data,
    metadata: row.metadata,
    createdAt: row.created_at,
  };
}

/**
 * The driver's errors may quote the connection string (a malformed URL, a DNS failure): the password is
 * replaced wherever it appears, and the error keeps its code so callers can classify it.
 */
function withoutSecrets(err: unknown, connectionString: string, context: string): unknown {
  if (!(err instanceof Error)) return err;
  const password = passwordOf(connectionString);
  const redacted = redactConnectionString(connectionString);
  let message = err.message.split(connectionString).join(redacted);
  if (password) message = message.split(password).join('***');
  if (message === err.message) return err;
  const copy = new Error(`${context}: ${message}`);
  Object.assign(copy, { code: (err as { code?: unknown }).code });
  return copy;
}

function passwordOf(url: string): string | null {
  try {
    const password = decodeURIComponent(new URL(url).password);
    return password.length >= 3 ? password : null;
  } catch {
    return null;
  }
}

/**
 * One LISTEN connection per store, outside the pool (a pooled connection would be handed to queries). It emits
 * 'appended' on each notification, and after every (re)connection, since notifications sent while it was
 * away are lost; a lost connection is re-made after a growing pause, for as long as the store is open.
 */
class Listener {
  private client: pg.Client | null = null;
  private stopped = false;
  private delayMs = LISTEN_RETRY_MS.first;
  private timer: NodeJS.Timeout | null = null;
  private connecting: Promise<void> | null = null;

  constructor(
    private readonly connectionString: string,
    private readonly appended: EventEmitter,
    private readonly applicationName: string | undefined,
    private readonly logger: Logger | undefined,
  ) {
    this.connecting = this.connect();
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.connectionString,
      application_name: `${this.applicationName ?? 'messaging-agent-service:eventstore'}:listen`,
      connectionTimeoutMillis: 10_000,
      keepAlive: true,
    });
    let lost = false;
    const onLost = (err?: Error) => {
      if (lost) return;
      lost = true;
      if (this.client === client) this.client = null;
      client.end().catch(() => undefined);
      if (this.stopped) return;
      this.logger?.warn(
        { err: err ? { message: withoutSecretsMessage(err, this.connectionString), code: (err as { code?: string }).code } : undefined },
        'the event store lost its LISTEN connection; subscriptions poll until it is back',
      );
      this.retryLater();
    };
    client.on('error', onLost);
    client.on('end', () => onLost());
    client.on('notification', () => this.appended.emit('appended'));
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
    } catch (err) {
      onLost(err as Error);
      return;
    } finally {
      this.connecting = null;
    }
    if (this.stopped || lost) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.delayMs = LISTEN_RETRY_MS.first;
    // Whatever was appended while no connection listened is read now, not at the next poll.
    this.appended.emit('appended');
  }

  private retryLater(): void {
    if (this.timer || this.stopped) return;
    const delay = this.delayMs;
    this.delayMs = Math.min(LISTEN_RETRY_MS.max, this.delayMs * 2);
    this.timer = setTimeout(() => {
      this.timer = null;
      if (!this.stopped) this.connecting = this.connect();
    }, delay);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.connecting?.catch(() => undefined);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }
}

function withoutSecretsMessage(err: Error, connectionString: string): string {
  return (withoutSecrets(err, connectionString, 'listen') as Error).message;
}
