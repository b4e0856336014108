import { EventEmitter } from 'node:events';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { BroadcastChannel } from 'node:worker_threads';
import Database from 'better-sqlite3';
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
import { checkExpectedRevision, pollingSubscription } from '../eventStoreSupport.js';
import { SAFETY_NET_PAGES, startWalCheckpointer, type WalCheckpointer } from './walCheckpointer.js';
import { WalSync } from './walSync.js';

export interface SqliteEventStoreOptions {
  /** How often a subscription looks for events appended by another process (same file). Default 250 ms. */
  pollMs?: number;
  /** Most appends committed together in one transaction (group commit). Default 512. */
  maxAppendsPerCommit?: number;
  /**
   * How long an append waits for another thread or process holding the write lock before it fails with
   * StoreBusyError. The wait is asynchronous (the event loop keeps running). Default 5000 ms.
   */
  busyTimeoutMs?: number;
  /**
   * Wake the subscriptions of other threads of this process on the same file at once, instead of at their
   * next poll (the processor thread follows the HTTP thread's appends within a millisecond).
   */
  wakeOtherThreads?: boolean;
  /** Checkpoint the WAL on a worker thread instead of inside commits (see walCheckpointer.ts). */
  checkpointOnWorker?: boolean;
  /**
   * Where commits are made durable: 'thread-pool' (default for a file) fsyncs the WAL off the event loop before
   * appends resolve (see walSync.ts); 'in-commit' lets SQLite fsync inside each commit (synchronous=FULL).
   */
  walSync?: 'thread-pool' | 'in-commit';
}

/** One append waiting for the next group commit. */
interface PendingAppend {
  stream: string;
  rows: EncodedEvent[];
  expected: ExpectedRevision;
  resolve(result: AppendResult): void;
  reject(err: unknown): void;
}

interface EncodedEvent {
  id: string;
  type: string;
  data: string;
  metadata: string;
}

type Outcome = { ok: true; result: AppendResult } | { ok: false; error: unknown };
type StoredId = { stream: string; revision: bigint };

/**
 * SQLite's own busy handler sleeps inside the call, blocking the thread: it only covers brief holds (and the
 * rare busy read in WAL mode). A longer wait for the write lock is a timer (LOCK_RETRY_MS, doubling).
 */
const BLOCKING_BUSY_MS = 5;
const LOCK_RETRY_MS = { first: 2, max: 25 };
/** Wakes of the other threads (see wakeOthersSoon) are this far apart at least. */
const WAKE_INTERVAL_MS = 4;

const isBusy = (err: unknown) => {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code === 'SQLITE_BUSY' || code.startsWith('SQLITE_BUSY_') || code === 'SQLITE_LOCKED');
};

/** An append failed after writing part of its rows: the transaction must not commit. */
class CommitAborted extends Error {
  constructor(override readonly cause: unknown) {
    super('append failed half-way; commit aborted');
  }
}

/** Column order of every event SELECT, read with .raw() (arrays are cheaper than row objects). */
const COLUMNS = 'position, id, stream, revision, type, data, metadata, created_at';
type EventRow = [bigint, string, string, bigint, string, string, string, string];

const SCHEMA = `
CREATE TABLE IF NOT EXISTS events (
  -- AUTOINCREMENT: a position is never handed out twice, even after the newest rows are deleted.
  position   INTEGER PRIMARY KEY AUTOINCREMENT,
  id         TEXT    NOT NULL UNIQUE,
  stream     TEXT    NOT NULL,
  revision   INTEGER NOT NULL,
  type       TEXT    NOT NULL,
  data       TEXT    NOT NULL,  -- JSON
  metadata   TEXT    NOT NULL,  -- JSON
  created_at TEXT    NOT NULL,  -- ISO 8601 UTC with milliseconds
  UNIQUE (stream, revision)
);
-- Scratch space of probeWrite(): a row is written and deleted in the same transaction, never kept.
CREATE TABLE IF NOT EXISTS write_probe (pad BLOB NOT NULL);
`;

/**
 * The embedded event store: one SQLite file (better-sqlite3) in WAL mode.
 *
 * Durability: an append that resolved must survive a power loss, so the WAL is fsynced after every commit and
 * before its appends resolve: by default on libuv's thread pool (walSync.ts), not inside the commit on the
 * event loop. To keep throughput with one fsync per commit, appends are group-committed: every append issued
 * in the same event-loop turn (e.g. while the previous commit was running) joins one transaction, in order,
 * each with its own expected-revision check and its own result or error. A promise resolves only after the
 * transaction that holds its events has committed.
 *
 * Several processes may open the same file: writes take the write lock up front (BEGIN IMMEDIATE, waiting
 * up to busyTimeoutMs), positions come from AUTOINCREMENT under that lock, so commit order = position
 * order; subscriptions are woken in-process by an emitter and otherwise poll.
 */
export class SqliteEventStore implements EventStore {
  private readonly db: Database.Database;
  private readonly appended = new EventEmitter().setMaxListeners(0);
  private readonly subscriptions = new Set<Subscription>();
  private readonly queue: PendingAppend[] = [];
  private flushScheduled = false;
  /** Set while the write lock is held elsewhere: when the wait began, and the timer of the next attempt. */
  private lockWait: { since: number; delayMs: number; timer: NodeJS.Timeout | null } | null = null;
  private readonly busyTimeoutMs: number;
  private wake: BroadcastChannel | null = null;
  private wakePending = false;
  private lastWakeAt = -Infinity;
  private checkpointer: WalCheckpointer | null = null;
  private walSync: WalSync | null = null;
  private closed = false;
  private readonly pollMs: number;
  private readonly maxAppendsPerCommit: number;
  /** Group-commit counters (for benchmarks and metrics): transactions committed, appends they carried. */
  readonly commitStats = { commits: 0, appends: 0 };

  private readonly stmt: {
    byId: Database.Statement<[string]>;
    streamRange: Database.Statement<[string, bigint, bigint]>;
    lastRevision: Database.Statement<[string]>;
    head: Database.Statement<[]>;
    insert: Database.Statement<[string, string, bigint, string, string, string, string]>;
    readStream: Database.Statement<[string, bigint, number]>;
    readStreamBackwards: Database.Statement<[string, bigint, number]>;
  };
  private readonly readAllStatements = new Map<string, Database.Statement<unknown[]>>();
  /** Statements with their LIMIT written in, by SQL text (see withLimit). */
  private readonly limitedStatements = new Map<string, Database.Statement<unknown[]>>();
  private readonly commitBatch: Database.Transaction<(batch: PendingAppend[], createdAt: string) => Outcome[]>;

  constructor(
    readonly path: string,
    options: SqliteEventStoreOptions = {},
  ) {
    this.pollMs = options.pollMs ?? 250;
    if (options.wakeOtherThreads && path !== ':memory:' && path !== '') {
      this.wake = new BroadcastChannel(`mas-events:${resolve(path)}`);
      (this.wake as unknown as { unref(): void }).unref();
      this.wake.onmessage = () => this.appended.emit('appended');
    }
    this.maxAppendsPerCommit = options.maxAppendsPerCommit ?? 512;
    this.busyTimeoutMs = options.busyTimeoutMs ?? 5000;
    if (path !== ':memory:' && path !== '') mkdirSync(dirname(path), { recursive: true });
    this.db = new Database(path);
    this.db.defaultSafeIntegers(true); // every INTEGER comes back as bigint: revisions and positions stay exact
    this.db.pragma(`busy_timeout = ${Math.min(BLOCKING_BUSY_MS, this.busyTimeoutMs)}`);
    this.db.pragma('journal_mode = WAL');
    const onFile = path !== ':memory:' && path !== '';
    const syncOffLoop = onFile && (options.walSync ?? 'thread-pool') === 'thread-pool';
    this.db.pragma(`synchronous = ${syncOffLoop ? 'NORMAL' : 'FULL'}`);
    // The default 2 MiB page cache makes every index lookup a system call once the store outgrows it: the
    // cost of an append would then grow with the store. 64 MiB keeps the hot index pages in memory.
    this.db.pragma('cache_size = -65536');
    this.db.exec(SCHEMA);
    if (syncOffLoop) this.walSync = new WalSync(`${path}-wal`);
    if (options.checkpointOnWorker && path !== ':memory:' && path !== '') {
      this.db.pragma(`wal_autocheckpoint = ${SAFETY_NET_PAGES}`);
      this.checkpointer = startWalCheckpointer(path);
    }

    const db = this.db;
    this.stmt = {
      byId: db.prepare('SELECT stream, revision FROM events WHERE id = ?'),
      streamRange: db
        .prepare(`SELECT id, revision, position FROM events WHERE stream = ? AND revision BETWEEN ? AND ? ORDER BY revision`)
        .raw(true),
      lastRevision: db.prepare('SELECT max(revision) FROM events WHERE stream = ?').pluck(true),
      head: db.prepare('SELECT max(position) FROM events').pluck(true),
      insert: db.prepare(
        'INSERT INTO events (id, stream, revision, type, data, metadata, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ),
      readStream: db.prepare(`SELECT ${COLUMNS} FROM events WHERE stream = ? AND revision >= ? ORDER BY revision LIMIT ?`).raw(true),
      readStreamBackwards: db.prepare(`SELECT ${COLUMNS} FROM events WHERE stream = ? AND revision <= ? ORDER BY revision DESC LIMIT ?`).raw(true),
    };

    this.commitBatch = db.transaction((batch: PendingAppend[], createdAt: string) => {
      const outcomes: Outcome[] = [];
      for (const p of batch) {
        try {
          outcomes.push({ ok: true, result: this.appendInTransaction(p, createdAt) });
        } catch (error) {
          // I/O errors, a full disk, a half-written append: the whole commit fails (and rolls back).
          if (!isAppendLocalError(error)) throw error instanceof CommitAborted ? error.cause : error;
          outcomes.push({ ok: false, error });
        }
      }
      return outcomes;
    });
  }

  append(stream: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    if (this.closed) return Promise.reject(new Error(`event store ${this.path} is closed`));
    let rows: EncodedEvent[];
    try {
      rows = events.map(encode);
    } catch (err) {
      return Promise.reject(err);
    }
    return new Promise<AppendResult>((resolve, reject) => {
      this.queue.push({ stream, rows, expected, resolve, reject });
      this.scheduleFlush();
    });
  }

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    this.assertOpen();
    const limit = options.maxCount ?? -1; // LIMIT -1 = no limit
    if (limit === 0) return [];
    const rows =
      options.direction === 'backwards'
        ? (this.withLimit(this.stmt.readStreamBackwards, limit).all(stream, options.fromRevision ?? BigInt(Number.MAX_SAFE_INTEGER), limit) as EventRow[])
        : (this.withLimit(this.stmt.readStream, limit).all(stream, options.fromRevision ?? 0n, limit) as EventRow[]);
    return rows.map(decode);
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    this.assertOpen();
    const prefixes = options.filter?.streamPrefixes;
    const types = options.filter?.eventTypes;
    if (prefixes?.length === 0 || types?.length === 0 || options.maxCount === 0) return [];
    const statement = this.withLimit(this.readAllStatement(prefixes?.length ?? 0, types?.length ?? 0), options.maxCount ?? -1);
    const params: unknown[] = [options.after ?? -1n];
    for (const p of prefixes ?? []) params.push(p, p);
    for (const t of types ?? []) params.push(t);
    params.push(options.maxCount ?? -1); // LIMIT -1 = no limit
    return (statement.all(...params) as EventRow[]).map(decode);
  }

  subscribe(options: SubscribeOptions, handler: (events: RecordedEvent[]) => Promise<void>): Subscription {
    this.assertOpen();
    const inner = pollingSubscription(this, this.appended, options, handler, this.pollMs);
    const subscription: Subscription = {
      stop: async () => {
        this.subscriptions.delete(subscription);
        await inner.stop();
      },
    };
    this.subscriptions.add(subscription);
    return subscription;
  }

  /** The WAL checkpointer thread's latest result, null without one or before its first round. */
  walCheckpoint(): { log: number; checkpointed: number } | null {
    return this.checkpointer?.last() ?? null;
  }

  async headPosition(): Promise<bigint | null> {
    this.assertOpen();
    return (this.stmt.head.get() as bigint | null) ?? null;
  }

  /**
   * Throws when the store cannot write now (disk full, max_page_count reached, I/O error, lock held):
   * commits a transaction that allocates fresh pages (a blob bigger than a page needs overflow pages, which
   * are never shared) and frees them again, so nothing is stored and no event is appended. Used by readiness
   * after a failed append; costs one fsync.
   */
  probeWrite(): void {
    this.assertOpen();
    const pageSize = Number(this.db.pragma('page_size', { simple: true }));
    this.db
      .transaction(() => {
        this.db.prepare('INSERT INTO write_probe (pad) VALUES (zeroblob(?))').run(pageSize * 2);
        this.db.prepare('DELETE FROM write_probe').run();
      })
      .immediate();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await Promise.all([...this.subscriptions].map((s) => s.stop()));
    // Appends already accepted are committed, not dropped: on the way out, waiting for the lock may block.
    if (this.lockWait?.timer) clearTimeout(this.lockWait.timer);
    this.lockWait = null;
    this.db.pragma(`busy_timeout = ${this.busyTimeoutMs}`);
    while (this.queue.length > 0) this.flushOnce(true);
    await this.walSync?.close();
    await this.checkpointer?.stop();
    this.closed = true;
    this.wake?.close();
    this.wake = null;
    this.db.close();
  }

  private assertOpen(): void {
    if (this.closed) throw new Error(`event store ${this.path} is closed`);
  }

  private scheduleFlush(): void {
    if (this.flushScheduled || this.lockWait) return; // while the lock is held elsewhere, its timer flushes
    this.flushScheduled = true;
    // setImmediate, not a microtask: every append issued in this turn (and I/O callbacks due now) joins.
    setImmediate(() => {
      this.flushScheduled = false;
      if (this.closed) return;
      this.flushOnce();
      if (this.queue.length > 0) this.scheduleFlush(); // let reads interleave between big batches
    });
  }

  /** Commits up to maxAppendsPerCommit queued appends in one transaction, then settles their promises. */
  private flushOnce(closing = false): void {
    const batch = this.queue.splice(0, this.maxAppendsPerCommit);
    if (batch.length === 0) return;
    let outcomes: Outcome[];
    try {
      outcomes = this.commitBatch.immediate(batch, new Date().toISOString());
    } catch (err) {
      // BEGIN IMMEDIATE found the lock taken: nothing ran, so the batch goes back to the front, in order.
      if (isBusy(err) && !closing) {
        this.queue.unshift(...batch);
        this.waitForLock();
        return;
      }
      for (const p of batch) p.reject(isBusy(err) ? new StoreBusyError(this.busyTimeoutMs) : err);
      return;
    }
    this.lockWait = null;
    this.commitStats.commits += 1;
    this.commitStats.appends += batch.length;
    if (this.walSync) this.walSync.afterCommit((syncError) => this.settle(batch, outcomes, syncError));
    else this.settle(batch, outcomes, null);
  }

  /** Answers each append of a commit once it is durable; a failed fsync fails every append it was to cover. */
  private settle(batch: PendingAppend[], outcomes: Outcome[], syncError: Error | null): void {
    let wrote = false;
    outcomes.forEach((o, i) => {
      const p = batch[i]!;
      if (!o.ok) p.reject(o.error);
      else if (syncError) p.reject(syncError);
      else {
        wrote ||= p.rows.length > 0;
        p.resolve(o.result);
      }
    });
    if (wrote) {
      this.appended.emit('appended');
      this.wakeOthersSoon();
    }
  }

  /**
   * One wake-up per turn of the event loop, however many commits settled in it: each message costs the sender
   * a post and every other thread a read of the log, and under a flood the replies thread spent a twentieth
   * of its time posting them one per commit.
   */
  private wakeOthersSoon(): void {
    if (!this.wake || this.wakePending) return;
    this.wakePending = true;
    // At most one wake per WAKE_INTERVAL_MS: a busy thread commits hundreds of times a second, and every wake is a
    // message to each other thread; their subscriptions read everything committed by then anyway.
    const post = () => {
      this.wakePending = false;
      this.lastWakeAt = performance.now();
      this.wake?.postMessage(0);
    };
    const wait = this.lastWakeAt + WAKE_INTERVAL_MS - performance.now();
    if (wait <= 0) setImmediate(post);
    else setTimeout(post, wait);
  }

  /** Tries again after a growing delay; past busyTimeoutMs every queued append fails, having written nothing. */
  private waitForLock(): void {
    const now = performance.now();
    const wait = (this.lockWait ??= { since: now, delayMs: LOCK_RETRY_MS.first / 2, timer: null });
    const waited = now - wait.since;
    if (waited >= this.busyTimeoutMs) {
      this.lockWait = null;
      const error = new StoreBusyError(Math.round(waited));
      for (const p of this.queue.splice(0)) p.reject(error);
      return;
    }
    wait.delayMs = Math.min(LOCK_RETRY_MS.max, wait.delayMs * 2, this.busyTimeoutMs - waited);
    wait.timer = setTimeout(() => {
      wait.timer = null;
      if (this.closed || this.lockWait !== wait) return;
      this.flushOnce();
      if (this.queue.length > 0 && this.lockWait === null) this.scheduleFlush();
    }, wait.delayMs);
  }

  /**
   * Runs inside the commit transaction. Every check comes before the first INSERT, so an append refused by
   * a check has written nothing and fails alone (no savepoint needed). An error after an INSERT (not
   * expected: the checks cover the constraints) is wrapped as fatal and fails the whole commit.
   */
  private appendInTransaction(p: PendingAppend, createdAt: string): AppendResult {
    const { stream, rows, expected } = p;
    const first = rows[0];
    const firstHit = first ? (this.stmt.byId.get(first.id) as StoredId | undefined) : undefined;
    if (firstHit && firstHit.stream === stream) {
      const retry = this.findRetry(stream, rows, firstHit.revision);
      if (retry) return retry;
    }

    const current = (this.stmt.lastRevision.get(stream) as bigint | null) ?? null;
    checkExpectedRevision(stream, expected, current);
    if (rows.length === 0) {
      return { nextRevision: current ?? -1n, position: (this.stmt.head.get() as bigint | null) ?? -1n };
    }
    const seen = new Set<string>();
    for (const [i, row] of rows.entries()) {
      const existing = i === 0 ? firstHit : (this.stmt.byId.get(row.id) as StoredId | undefined);
      if (existing || seen.has(row.id)) throw new EventIdConflictError(stream, String(expected), row.id, existing?.stream ?? null);
      seen.add(row.id);
    }
    let revision = current ?? -1n;
    let position = -1n;
    for (const [i, row] of rows.entries()) {
      revision += 1n;
      try {
        const info = this.stmt.insert.run(row.id, stream, revision, row.type, row.data, row.metadata, createdAt);
        position = BigInt(info.lastInsertRowid);
      } catch (err) {
        if (i === 0) throw err; // nothing of this append written yet: it fails alone
        throw new CommitAborted(err);
      }
    }
    return { nextRevision: revision, position };
  }

  /**
   * A retried append (the same ids, in order, already stored consecutively in this stream, wherever) answers
   * like the original did and stores nothing: the rule of findIdempotentRetry, answered by the indexes.
   */
  private findRetry(stream: string, rows: EncodedEvent[], fromRevision: bigint): AppendResult | null {
    const stored = this.stmt.streamRange.all(stream, fromRevision, fromRevision + BigInt(rows.length - 1)) as [
      string,
      bigint,
      bigint,
    ][];
    if (stored.length !== rows.length || stored.some((s, i) => s[0] !== rows[i]!.id)) return null;
    const last = stored.at(-1)!;
    return { nextRevision: last[1], position: last[2], duplicate: true };
  }

  /**
   * Runs a statement ending in `LIMIT ?` with the limit written into the SQL instead. Binding a LIMIT
   * parameter expires the statement (the planner read its value), so SQLite re-prepared it at every run: an
   * empty tail read cost ~20 µs instead of ~4 µs, and loadState does one per command. `args` end with the
   * limit, as for the bound statement; odd or too many distinct limits still use the bound statement.
   */
  private withLimit(statement: Database.Statement<any[]>, limit: number): { all(...args: unknown[]): unknown[] } {
    if (!Number.isSafeInteger(limit)) return statement;
    const sql = statement.source.replace(/LIMIT \?$/, `LIMIT ${limit}`);
    let literal = this.limitedStatements.get(sql);
    if (!literal) {
      if (this.limitedStatements.size >= 64 || sql === statement.source) return statement;
      literal = this.db.prepare<unknown[]>(sql).raw(true);
      this.limitedStatements.set(sql, literal);
    }
    const prepared = literal;
    return { all: (...args: unknown[]) => prepared.all(...args.slice(0, -1)) };
  }

  private readAllStatement(prefixCount: number, typeCount: number): Database.Statement<unknown[]> {
    const key = `${prefixCount}:${typeCount}`;
    let statement = this.readAllStatements.get(key);
    if (!statement) {
      const where = ['position > ?'];
      // A prefix test by substr: exact and case-sensitive, and no LIKE wildcards to escape (SQLite's LIKE is
      // case-insensitive for ASCII). No index serves it anyway: the scan walks the rowid from `after`.
      if (prefixCount > 0) where.push(`(${Array(prefixCount).fill('substr(stream, 1, length(?)) = ?').join(' OR ')})`);
      if (typeCount > 0) where.push(`type IN (${Array(typeCount).fill('?').join(', ')})`);
      statement = this.db
        .prepare<unknown[]>(`SELECT ${COLUMNS} FROM events WHERE ${where.join(' AND ')} ORDER BY position LIMIT ?`)
        .raw(true);
      this.readAllStatements.set(key, statement);
    }
    return statement;
  }
}

export function openSqliteEventStore(path: string, options?: SqliteEventStoreOptions): SqliteEventStore {
  return new SqliteEventStore(path, options);
}

/** Errors that concern one append only; anything else (I/O, disk full, closed db) fails the whole commit. */
function isAppendLocalError(err: unknown): boolean {
  if (err instanceof WrongExpectedRevisionError) return true;
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_CONSTRAINT');
}

function encode(e: NewEvent): EncodedEvent {
  // Checked before queueing, so a malformed event fails its own append and never a shared commit.
  if (typeof e.id !== 'string' || e.id === '') throw new TypeError('event id must be a non-empty string');
  if (typeof e.type !== 'string' || e.type === '') throw new TypeError(`event ${e.id}: type must be a non-empty string`);
  return {
    id: e.id,
    type: e.type,
    data: JSON.stringify(e.data ?? null),
    metadata: JSON.stringify(e.metadata ?? {}),
  };
}

function decode(row: EventRow): RecordedEvent {
  return {
    position: row[0],
    id: row[1],
    stream: row[2],
    revision: row[3],
    type: row[4],
    data: JSON.parse(row[5]) as unknown,
    metadata: JSON.parse(row[6]) as EventMetadata,
    createdAt: row[7],
  };
}
