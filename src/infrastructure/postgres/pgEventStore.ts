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
import { EventIdConflictError, WrongExpectedRevisionError } from '../../ports/errors.js';
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
 * (group commit, see startCommitter), which bench/README.md measures. Reading only below the oldest running
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
/** Most appends one transaction carries (group commit). */
const MAX_APPENDS_PER_COMMIT = 256;

const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'event store: streams, events, write probe',
    sql: `
      CREATE TABLE es_streams (
        -- "C": byte order, so a stream-prefix LIKE can use the btree, and comparisons cost no locale rules.
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
  private listener: Listener | null = null;
  private readonly queue: PendingAppend[] = [];
  private committer: Promise<void> | null = null;
  private closed = false;

  private constructor(
    private readonly connectionString: string,
    private readonly options: PgEventStoreOptions,
  ) {
    this.pollMs = options.pollMs ?? 1000;
    this.logger = options.logger;
    this.beforeCommit = options.beforeCommit;
    this.pool = openPgPool({
      connectionString,
      max: options.poolSize ?? 10,
      applicationName: options.applicationName ?? 'messaging-agent-service:eventstore',
      ...(options.logger ? { logger: options.logger } : {}),
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
   * `after` = the last position seen visits every event once. With a type filter the (type, position) index
   * serves each type from the cursor; a stream prefix is a LIKE on the "C"-collated stream (the planner may
   * use the (stream, revision) index's prefix range, or walk positions from the cursor).
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
        params.push(`${escapeLike(p)}%`);
        return `stream LIKE $${params.length}`;
      });
      where.push(`(${terms.join(' OR ')})`);
    }
    if (types) {
      params.push(types);
      where.push(`type = ANY($${params.length}::text[])`);
    }
    const result = await this.query<EventRow>(`SELECT ${COLUMNS} FROM es_events WHERE ${where.join(' AND ')} ORDER BY position LIMIT $2`, params);
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
      while (this.queue.length > 0) await this.commit(this.queue.splice(0, MAX_APPENDS_PER_COMMIT));
    })().finally(() => {
      this.committer = null;
      if (this.queue.length > 0) this.startCommitter();
    });
  }

  /**
   * Commits a batch of appends in one transaction: the position lock first (see the class comment; taken
   * before any stream row, so two transactions never wait for each other in opposite orders), then one
   * statement per append, then NOTIFY. An append refused by its checks writes nothing and fails alone. An
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
      // Statements without parameters go together in one round trip (the simple query protocol).
      await client.query(`BEGIN; SELECT pg_advisory_xact_lock(${POSITION_LOCK_KEY})`);
      outcomes = [];
      for (const p of batch) outcomes.push(await this.appendInTransaction(client, p));
      const notify = outcomes.some((o) => typeof o === 'object') ? `SELECT pg_notify('${CHANNEL}', ''); ` : '';
      if (this.beforeCommit) {
        if (notify) await client.query(notify);
        await this.beforeCommit();
        await client.query('COMMIT');
      } else {
        await client.query(`${notify}COMMIT`);
      }
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      const lost = isTransientPgError(err);
      client.release(lost ? (err as Error) : undefined);
      if (batch.length > 1 && !lost) {
        for (const p of batch) await this.commit([p]);
        return;
      }
      // A lost connection may have lost the COMMIT's answer too: a retry of the append is recognised as one.
      for (const p of batch) p.reject(this.surface(err));
      return;
    }
    client.release();
    batch.forEach((p, i) => p.resolve(outcomes[i]!));
    if (outcomes.some((o) => typeof o === 'object')) this.appended.emit('appended');
  }

  /** One append inside the batch's transaction: its checks, its revision move and its events in one statement. */
  private async appendInTransaction(client: pg.PoolClient, p: PendingAppend): Promise<Outcome> {
    const { stream, rows, expected } = p;
    const params: unknown[] = [stream, rows.length, rows.map((r) => r.id), rows.map((r) => r.type), rows.map((r) => r.data), rows.map((r) => r.metadata)];
    if (typeof expected === 'bigint') params.push(String(expected));
    // Named: prepared once per connection, so each append skips parsing and planning the statement.
    const kind = typeof expected === 'bigint' ? 'exact' : expected;
    const result = await client.query<{ conflict: boolean; revision: string | null; position: string | null }>({
      name: `es_append_${kind}`,
      text: appendSql(expected),
      values: params,
    });
    const row = result.rows[0]!;
    if (row.conflict) return 'id-conflict';
    if (row.revision === null || row.position === null) return 'revision-mismatch';
    return { nextRevision: BigInt(row.revision), position: BigInt(row.position) };
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
  options?: { logger?: Logger; pollMs?: number; applicationName?: string; poolSize?: number },
): Promise<PgEventStore> {
  return PgEventStore.open(connectionString, options);
}

/**
 * One append as one statement ($1 stream, $2 event count, $3–$6 ids, types, data, metadata, $7 an exact expected
 * revision): `conflict` looks the ids up by the unique index; `moved` checks the expected revision and moves the
 * stream's revision by the count in one row write (nothing when an id is taken); the events are inserted only
 * when it moved, numbered from the new revision back. The answer: conflict, the new revision (null: refused),
 * and the last position. The stream's row is only touched under the position lock, so it is never waited for.
 */
function appendSql(expected: ExpectedRevision): string {
  const free = 'NOT (SELECT hit FROM conflict)';
  const move =
    expected === 'no_stream'
      ? `INSERT INTO es_streams (stream, revision) SELECT $1, $2::bigint - 1 WHERE ${free} ON CONFLICT (stream) DO NOTHING`
      : expected === 'any'
        ? `INSERT INTO es_streams (stream, revision) SELECT $1, $2::bigint - 1 WHERE ${free}
           ON CONFLICT (stream) DO UPDATE SET revision = es_streams.revision + $2::bigint`
        : expected === 'stream_exists'
          ? `UPDATE es_streams SET revision = revision + $2::bigint WHERE stream = $1 AND ${free}`
          : `UPDATE es_streams SET revision = revision + $2::bigint WHERE stream = $1 AND revision = $7::bigint AND ${free}`;
  return `WITH conflict AS (SELECT EXISTS (SELECT 1 FROM es_events WHERE id = ANY($3::text[])) AS hit),
    moved AS (${move} RETURNING revision),
    inserted AS (
      INSERT INTO es_events (id, stream, revision, type, data, metadata, created_at)
      SELECT e.id, $1, m.revision - $2::bigint + e.n, e.type, e.data::json, e.metadata::json,
             (SELECT date_trunc('milliseconds', clock_timestamp()))
      FROM moved m CROSS JOIN unnest($3::text[], $4::text[], $5::text[], $6::text[]) WITH ORDINALITY AS e(id, type, data, metadata, n)
      ORDER BY e.n
      RETURNING position)
    SELECT (SELECT hit FROM conflict) AS conflict, (SELECT revision FROM moved) AS revision, (SELECT max(position) FROM inserted) AS position`;
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

/** A LIKE pattern matching `text` literally (the default escape character is the backslash). */
function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
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
