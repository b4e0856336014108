import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';
import type { Logger } from '../../ports/logger.js';
import { silentLogger } from '../../ports/logger.js';
import { SAFETY_NET_PAGES, startWalCheckpointer, type WalCheckpointer } from './walCheckpointer.js';
import {
  StaleGenerationError,
  ProjectionConflictError,
  checkDoc,
  type CollectionSpec,
  type Doc,
  type FindQuery,
  type FullTextSpec,
  type Page,
  type ReadStore,
  type ReadStoreRebuild,
  type Scalar,
  type SearchHit,
  type SearchQuery,
  type WriteOp,
} from '../../ports/readStore.js';
import { encodeCursor, normalizeFind, type NormalizedFind, type SortKey } from '../readStore/find.js';
import { checkFullTextSpec, encodeSearchCursor, hitOf, normalizeSearch, orderValue, textField, wordsOf } from '../readStore/fullText.js';
import { checkCollectionName, collapseOps, indexKeys, positionKey } from '../readStore/specs.js';

export interface SqliteReadStoreOptions {
  /** File path (e.g. `${DATA_DIR}/readmodels.sqlite`) or ':memory:'. */
  path: string;
  logger?: Logger;
  /** How long a writer waits for another process's write lock. Default 5000 ms. */
  busyTimeoutMs?: number;
  /** Checkpoint the WAL on a worker thread instead of inside projection commits (see walCheckpointer.ts). */
  checkpointOnWorker?: boolean;
}

type Statement = Database.Statement<unknown[], unknown>;

/** State shared by a store and every generation view of it: one connection. */
interface Shared {
  db: Database.Database;
  logger: Logger;
  /** Collections declared through ensureCollections (specs do not depend on the generation). */
  specs: Map<string, CollectionSpec>;
  /** Physical tables this connection has created or seen declared. */
  ensured: Set<string>;
  statements: Map<string, Statement>;
  /** Runs a function in one deferred (read) transaction. */
  readTx: Database.Transaction<(fn: () => unknown) => unknown>;
  closed: boolean;
  checkpointer: WalCheckpointer | null;
  /** Commits waiting for this turn's group transaction (see commit). */
  pendingCommits: PendingCommit[];
  /** Set while the group waits for another connection's write lock (see flushCommits). */
  lockWait: { since: number; delayMs: number; timer: NodeJS.Timeout | null } | null;
  busyTimeoutMs: number;
}

interface PendingCommit {
  apply(): void;
  resolve(): void;
  reject(err: unknown): void;
}

/** A write lock held by another connection is waited for this way: first retry after 2 ms, doubling up to 25 ms. */
const LOCK_RETRY_MS = { first: 2, max: 25 };
const isBusy = (err: unknown) => (err as { code?: string } | null)?.code === 'SQLITE_BUSY';

/**
 * Applies the waiting commits in one transaction, each in a savepoint of its own. The write lock is taken without
 * SQLite's busy handler, which sleeps on the thread: while another thread's connection holds it (the projections
 * thread's group, when a reactor saves its checkpoint), the commits wait on a timer and the event loop runs on.
 */
function flushCommits(s: Shared, blocking = false): void {
  if (s.lockWait?.timer && !blocking) return; // a retry is already scheduled; it takes these too
  const batch = s.pendingCommits.splice(0);
  if (batch.length === 0) return;
  if (s.closed) {
    for (const c of batch) c.reject(new Error('the read store is closed'));
    return;
  }
  const failures = new Map<PendingCommit, unknown>();
  if (!blocking) s.db.pragma('busy_timeout = 0');
  try {
    s.db.transaction(() => {
      for (const c of batch) {
        try {
          s.db.transaction(c.apply)();
        } catch (err) {
          failures.set(c, err);
        }
      }
    }).immediate();
  } catch (err) {
    if (isBusy(err) && failures.size === 0 && waitForLock(s)) {
      s.pendingCommits.unshift(...batch); // nothing ran: tried again, in order, with what arrives meanwhile
      return;
    }
    for (const c of batch) c.reject(err);
    return;
  } finally {
    s.db.pragma(`busy_timeout = ${s.busyTimeoutMs}`);
  }
  s.lockWait = null;
  for (const c of batch) {
    if (failures.has(c)) c.reject(failures.get(c));
    else c.resolve();
  }
}

/** Schedules the next try; false once busyTimeoutMs has passed since the first (the commits then fail as busy). */
function waitForLock(s: Shared): boolean {
  const now = performance.now();
  const wait = (s.lockWait ??= { since: now, delayMs: LOCK_RETRY_MS.first / 2, timer: null });
  if (now - wait.since >= s.busyTimeoutMs) {
    s.lockWait = null;
    return false;
  }
  wait.delayMs = Math.min(LOCK_RETRY_MS.max, wait.delayMs * 2);
  wait.timer = setTimeout(() => {
    wait.timer = null;
    flushCommits(s);
  }, wait.delayMs);
  return true;
}

const ACTIVE = 'active_generation';
const LAST = 'last_generation';

/**
 * The embedded read store: one SQLite file (WAL). Each collection of each generation is a table
 * `rm_<name>_g<generation>` (id, doc JSON, pos) with expression indexes on the declared fields; checkpoints
 * live in `readstore_checkpoints` per (projector, generation) and are written in the same transaction as the
 * documents. `readstore_meta` holds the active generation; every query reads it in the same read transaction
 * as the data, so every instance — in this process or another — follows a switch-over at once.
 */
export class SqliteReadStore implements ReadStore {
  static open(options: SqliteReadStoreOptions): SqliteReadStore {
    const db = new Database(options.path, { timeout: options.busyTimeoutMs ?? 5000 });
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('cache_size = -32768'); // 32 MiB: index lookups stay in memory as the read models grow
    // Deleted documents and dropped generations are overwritten with zeros, not left in free pages: an erased
    // customer's data must not survive in the file once the read models are rebuilt without it (docs/erasure.md).
    db.pragma('secure_delete = ON');
    const onWorker = options.checkpointOnWorker === true && options.path !== ':memory:' && options.path !== '';
    if (onWorker) db.pragma(`wal_autocheckpoint = ${SAFETY_NET_PAGES}`);
    db.exec(`
      CREATE TABLE IF NOT EXISTS readstore_meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
      INSERT OR IGNORE INTO readstore_meta (key, value) VALUES ('${ACTIVE}', 1), ('${LAST}', 1);
      CREATE TABLE IF NOT EXISTS readstore_collections (
        name TEXT NOT NULL, generation INTEGER NOT NULL, indexes TEXT NOT NULL, PRIMARY KEY (name, generation));
      CREATE TABLE IF NOT EXISTS readstore_checkpoints (
        projector TEXT NOT NULL, generation INTEGER NOT NULL, position TEXT NOT NULL, PRIMARY KEY (projector, generation));
      CREATE TABLE IF NOT EXISTS reactor_checkpoints (reactor TEXT PRIMARY KEY, position TEXT NOT NULL);
    `);
    addFullTextColumn(db);
    const shared: Shared = {
      db,
      logger: options.logger ?? silentLogger,
      specs: new Map(),
      ensured: new Set(),
      statements: new Map(),
      readTx: db.transaction((fn: () => unknown) => fn()),
      closed: false,
      checkpointer: onWorker ? startWalCheckpointer(options.path, { logger: options.logger }) : null,
      pendingCommits: [],
      lockWait: null,
      busyTimeoutMs: options.busyTimeoutMs ?? 5000,
    };
    return new SqliteReadStore(shared, null);
  }

  private aborted = false;

  private constructor(
    private readonly s: Shared,
    /** null: follows the active generation. */
    private readonly bound: number | null,
  ) {}

  atGeneration(generation: number): ReadStore {
    if (!Number.isInteger(generation) || generation < 1) throw new Error(`invalid generation ${generation}`);
    return new SqliteReadStore(this.s, generation);
  }

  async ensureCollections(specs: CollectionSpec[]): Promise<void> {
    for (const spec of specs) {
      indexKeys(spec); // validates
      if (spec.fullText) checkFullTextSpec(spec.name, spec.fullText);
    }
    this.s.db.transaction(() => {
      const generation = this.writableGeneration();
      for (const spec of specs) {
        this.s.specs.set(spec.name, spec);
        this.createTable(spec, generation);
      }
    }).immediate();
  }

  async get<T extends Doc = Doc>(collection: string, id: string): Promise<T | null> {
    checkCollectionName(collection);
    return this.read(() => {
      const row = this.query(this.table(collection, this.generation()), 'SELECT doc FROM $t WHERE id = ?', (st) => st.get(id)) as
        | { doc: string }
        | undefined;
      return row ? (JSON.parse(row.doc) as T) : null;
    });
  }

  async find<T extends Doc = Doc>(collection: string, query?: FindQuery): Promise<Page<T>> {
    checkCollectionName(collection);
    const q = normalizeFind(collection, query, this.spec(collection));
    return this.read(() => {
      const params: unknown[] = [];
      const conditions = whereSql(q.where, params);
      if (q.after) conditions.push(keysetSql(q.sort, q.after, params));
      const order = q.sort.map((k) => `${expr(k.field)} ${k.direction === 'asc' ? 'ASC' : 'DESC'}`).join(', ');
      const sql = `SELECT doc FROM $t${conditions.length ? ` WHERE ${conditions.join(' AND ')}` : ''} ORDER BY ${order} LIMIT ?`;
      params.push(q.limit + 1);
      const rows = (this.query(this.table(collection, this.generation()), sql, (st) => st.all(...params)) ?? []) as { doc: string }[];
      const items = rows.slice(0, q.limit).map((r) => JSON.parse(r.doc) as T);
      return { items, nextCursor: rows.length > q.limit ? encodeCursor(q, items.at(-1)!) : null };
    });
  }

  async count(collection: string, where?: Record<string, Scalar>): Promise<number> {
    checkCollectionName(collection);
    const q = normalizeFind(collection, { where }, this.spec(collection));
    return this.read(() => {
      const params: unknown[] = [];
      const conditions = whereSql(q.where, params);
      const sql = `SELECT count(*) AS n FROM $t${conditions.length ? ` WHERE ${conditions.join(' AND ')}` : ''}`;
      const row = this.query(this.table(collection, this.generation()), sql, (st) => st.get(...params)) as { n: number } | undefined;
      return row?.n ?? 0;
    });
  }

  /**
   * FTS5: each collection with `fullText` has a contentless table `<table>__fts` whose rowid is the document's
   * order value and whose one column holds the document's words, each prefixed with a key of its scope
   * (`k<hash of the scope><word>`). A query's terms carry the same key, so FTS5 only ever reads the scope's
   * own terms — prefix queries included — and walks rowids downwards until the page is full.
   */
  async search<T extends Doc = Doc>(collection: string, query: SearchQuery): Promise<Page<SearchHit<T>>> {
    checkCollectionName(collection);
    const spec = this.spec(collection);
    const ft = spec?.fullText;
    if (!ft) throw new Error(`read model collection ${collection} has no fullText index`);
    const q = normalizeSearch(collection, query);
    if (q.terms.length === 0) return { items: [], nextCursor: null };
    const key = scopeKey(q.scope);
    // Terms are letters and digits only (readStore/fullText.ts), so quoting them can never produce FTS5 syntax.
    const match = q.terms.map((t) => `"${key}${t}"*`).join(' AND ');
    return this.read(() => {
      const table = this.table(collection, this.generation());
      const fts = `${table}__fts`;
      const params: unknown[] = [q.scope, match];
      let sql =
        `SELECT d.doc AS doc FROM "${fts}" CROSS JOIN "${table}" d ` +
        // `+` keeps the rowid from imposing its affinity, so the order field's expression index is used.
        `ON ${expr(ft.order, 'd')} = +"${fts}".rowid AND ${expr(ft.scope, 'd')} = ? WHERE "${fts}" MATCH ?`;
      if (q.before !== null) {
        sql += ` AND "${fts}".rowid < ?`;
        params.push(q.before);
      }
      sql += ` ORDER BY "${fts}".rowid DESC LIMIT ?`;
      params.push(q.limit + 1);
      let rows: { doc: string }[];
      try {
        rows = this.statement(sql).all(...params) as { doc: string }[];
      } catch (err) {
        if (err instanceof Error && /no such table/.test(err.message)) {
          this.s.statements.delete(sql);
          return { items: [], nextCursor: null };
        }
        throw err;
      }
      const items = rows.slice(0, q.limit).map((r) => hitOf(JSON.parse(r.doc) as T, ft, q.terms, true));
      const last = items.at(-1);
      return { items, nextCursor: rows.length > q.limit && last ? encodeSearchCursor(q, orderValue(collection, ft, last.doc)) : null };
    });
  }

  /**
   * Commits of one event-loop turn (the projections of one batch each commit theirs) go into one transaction,
   * each in its own savepoint: one write lock, one WAL append of the shared pages (the checkpoints table), instead
   * of one transaction per projection. A commit that fails (a conflict, a stale generation) rolls back alone.
   */
  async commit(projector: string, ops: WriteOp[], position: bigint, after?: bigint | null): Promise<void> {
    const pos = positionKey(position);
    const collapsed = collapseOps(ops);
    for (const op of collapsed) {
      checkCollectionName(op.collection);
      if (op.kind === 'put') checkDoc(op.collection, op.doc);
    }
    // Serialize outside the transaction: a document that is not JSON fails before anything is written.
    const docs = collapsed.map((op) => (op.kind === 'put' ? JSON.stringify(op.doc) : null));
    const indexed = collapsed.map((op) => {
      const ft = this.s.specs.get(op.collection)?.fullText;
      return ft && op.kind === 'put' ? { order: orderValue(op.collection, ft, op.doc), words: indexedWords(op.collection, ft, op.doc) } : null;
    });
    const apply = () => {
      const generation = this.writableGeneration();
      const current = this.statement('SELECT position FROM readstore_checkpoints WHERE projector = ? AND generation = ?').get(
        projector,
        generation,
      ) as { position: string } | undefined;
      if (current && current.position >= pos) return; // a replay: already applied
      if (after !== undefined && (current?.position ?? null) !== (after === null ? null : positionKey(after))) {
        throw new ProjectionConflictError(projector, after, current?.position ?? null);
      }
      collapsed.forEach((op, i) => {
        const spec = this.s.specs.get(op.collection);
        if (!spec) throw new Error(`read model collection ${op.collection} is not declared (ensureCollections first)`);
        const table = this.createTable(spec, generation);
        const ft = spec.fullText;
        const id = op.kind === 'put' ? op.doc.id : op.id;
        // The index entry follows the document in this same transaction: the old one goes, the new one comes.
        const before = ft ? (this.statement(`SELECT doc FROM "${table}" WHERE id = ?`).get(id) as { doc: string } | undefined) : undefined;
        let changed: boolean;
        if (op.kind === 'put') {
          changed =
            this.statement(
              `INSERT INTO "${table}" (id, doc, pos) VALUES (?, ?, ?)
               ON CONFLICT (id) DO UPDATE SET doc = excluded.doc, pos = excluded.pos WHERE excluded.pos > "${table}".pos`,
            ).run(id, docs[i], pos).changes > 0;
        } else {
          changed = this.statement(`DELETE FROM "${table}" WHERE id = ? AND pos < ?`).run(id, pos).changes > 0;
        }
        if (!ft || !changed) return;
        const fts = `${table}__fts`;
        if (before) this.statement(`DELETE FROM "${fts}" WHERE rowid = ?`).run(orderValue(op.collection, ft, JSON.parse(before.doc) as Doc));
        const entry = indexed[i];
        if (!entry) return;
        const clash = this.statement(`SELECT id FROM "${table}" WHERE ${expr(ft.order)} = ? AND id <> ? LIMIT 1`).get(entry.order, id) as
          | { id: string }
          | undefined;
        if (clash) {
          throw new Error(`read model ${op.collection}: documents ${clash.id} and ${id} share the full-text order value ${entry.order}`);
        }
        this.statement(`INSERT INTO "${fts}" (rowid, words) VALUES (?, ?)`).run(entry.order, entry.words);
      });
      this.statement(
        `INSERT INTO readstore_checkpoints (projector, generation, position) VALUES (?, ?, ?)
         ON CONFLICT (projector, generation) DO UPDATE SET position = excluded.position`,
      ).run(projector, generation, pos);
    };
    return this.enqueueCommit(apply);
  }

  private enqueueCommit(apply: () => void): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.s.pendingCommits.push({ apply, resolve, reject });
      if (this.s.pendingCommits.length === 1) setImmediate(() => flushCommits(this.s));
    });
  }

  async reactorCheckpoint(reactor: string): Promise<bigint | null> {
    const row = this.statement('SELECT position FROM reactor_checkpoints WHERE reactor = ?').get(reactor) as { position: string } | undefined;
    return row ? BigInt(row.position) : null;
  }

  /** Joins the turn's group transaction (see commit): the reactors of a thread save theirs together. */
  async saveReactorCheckpoint(reactor: string, position: bigint): Promise<void> {
    const apply = () => {
      this.statement(
        `INSERT INTO reactor_checkpoints (reactor, position) VALUES (?, ?)
         ON CONFLICT (reactor) DO UPDATE SET position = excluded.position WHERE excluded.position > reactor_checkpoints.position`,
      ).run(reactor, positionKey(position));
    };
    return this.enqueueCommit(apply);
  }

  async checkpoint(projector: string): Promise<bigint | null> {
    return this.read(() => {
      const row = this.statement('SELECT position FROM readstore_checkpoints WHERE projector = ? AND generation = ?').get(
        projector,
        this.generation(),
      ) as { position: string } | undefined;
      return row ? BigInt(row.position) : null;
    });
  }

  async startRebuild(): Promise<ReadStoreRebuild> {
    const db = this.s.db;
    const generation = db.transaction(() => {
      const next = Math.max(this.meta(ACTIVE), this.meta(LAST)) + 1;
      db.prepare('UPDATE readstore_meta SET value = ? WHERE key = ?').run(next, LAST);
      return next;
    }).immediate();
    const store = new SqliteReadStore(this.s, generation);
    this.s.logger.info({ generation }, 'read store rebuild started');
    return {
      generation,
      store,
      switchOver: async () => {
        if (store.aborted) throw new Error(`read store generation ${generation} was aborted`);
        const dropped = db.transaction(() => {
          const active = this.meta(ACTIVE);
          if (active >= generation) {
            throw new Error(`cannot switch to read store generation ${generation}: generation ${active} is active`);
          }
          db.prepare('UPDATE readstore_meta SET value = ? WHERE key = ?').run(generation, ACTIVE);
          return this.dropGenerations('generation < ?', generation);
        }).immediate();
        this.s.logger.info({ generation, droppedTables: dropped }, 'read store switched to the rebuilt generation');
      },
      abort: async () => {
        if (store.aborted) return;
        db.transaction(() => {
          if (this.meta(ACTIVE) === generation) throw new Error(`read store generation ${generation} is already active`);
          this.dropGenerations('generation = ?', generation);
        }).immediate();
        store.aborted = true;
        this.s.logger.warn({ generation }, 'read store rebuild aborted; its generation was dropped');
      },
    };
  }

  async activeGeneration(): Promise<number> {
    return this.bound ?? this.meta(ACTIVE);
  }

  async close(): Promise<void> {
    if (this.bound !== null || this.s.closed) return; // views share the connection of their store
    if (this.s.lockWait?.timer) clearTimeout(this.s.lockWait.timer);
    this.s.lockWait = null;
    flushCommits(this.s, true); // what was committed before close is written, waiting for the lock if need be
    this.s.closed = true;
    this.s.statements.clear();
    await this.s.checkpointer?.stop();
    this.s.db.close();
  }

  // --- internals -------------------------------------------------------------------------------------------

  private meta(key: string): number {
    const row = this.statement('SELECT value FROM readstore_meta WHERE key = ?').get(key) as { value: number } | undefined;
    if (!row) throw new Error(`readstore_meta is missing ${key}`);
    return row.value;
  }

  private generation(): number {
    return this.bound ?? this.meta(ACTIVE);
  }

  /** The generation writes go to; must run inside a write transaction. */
  private writableGeneration(): number {
    if (this.aborted) throw new Error(`read store generation ${this.bound} was aborted`);
    const active = this.meta(ACTIVE);
    if (this.bound === null) return active;
    if (this.bound < active) throw new StaleGenerationError(this.bound, active);
    return this.bound;
  }

  /** Runs reads in one read transaction: the active generation and the data come from the same snapshot. */
  private read<R>(fn: () => R): R {
    return this.s.readTx.deferred(fn) as R;
  }

  private spec(collection: string): CollectionSpec | undefined {
    const known = this.s.specs.get(collection);
    if (known) return known;
    const row = this.s.db
      .prepare('SELECT indexes, full_text FROM readstore_collections WHERE name = ? ORDER BY generation DESC LIMIT 1')
      .get(collection) as { indexes: string; full_text: string | null } | undefined;
    if (!row) return undefined;
    const spec: CollectionSpec = { name: collection, indexes: JSON.parse(row.indexes) as CollectionSpec['indexes'] };
    if (row.full_text) spec.fullText = JSON.parse(row.full_text) as FullTextSpec;
    return spec;
  }

  private table(collection: string, generation: number): string {
    return `rm_${collection}_g${generation}`;
  }

  private createTable(spec: CollectionSpec, generation: number): string {
    const table = this.table(spec.name, generation);
    const key = `${table}\u0000${JSON.stringify(spec.indexes)}\u0000${JSON.stringify(spec.fullText ?? null)}`;
    if (this.s.ensured.has(key)) return table;
    const db = this.s.db;
    db.exec(`CREATE TABLE IF NOT EXISTS "${table}" (id TEXT PRIMARY KEY, doc TEXT NOT NULL, pos TEXT NOT NULL)`);
    for (const fields of indexKeys(spec)) {
      const name = `${table}__${fields.join('__').replaceAll('.', '_')}`;
      db.exec(`CREATE INDEX IF NOT EXISTS "${name}" ON "${table}" (${[...fields.map((f) => expr(f)), 'id'].join(', ')})`);
    }
    if (spec.fullText) {
      // Contentless (the words live only in the index; highlights are computed from the document) with
      // deletes by rowid. `ascii` keeps each prepared word (letters and digits only) one token.
      db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS "${table}__fts" USING fts5(words, content='', contentless_delete=1, tokenize='ascii')`);
      db.exec(`CREATE INDEX IF NOT EXISTS "${table}__ft_order" ON "${table}" (${expr(spec.fullText.order)})`);
    }
    db.prepare(
      `INSERT INTO readstore_collections (name, generation, indexes, full_text) VALUES (?, ?, ?, ?)
       ON CONFLICT (name, generation) DO UPDATE SET indexes = excluded.indexes, full_text = excluded.full_text`,
    ).run(spec.name, generation, JSON.stringify(spec.indexes), spec.fullText ? JSON.stringify(spec.fullText) : null);
    this.s.ensured.add(key);
    return table;
  }

  /** Drops every table of the matching generations with their checkpoints; returns the tables dropped. */
  private dropGenerations(condition: string, generation: number): string[] {
    const db = this.s.db;
    const rows = db.prepare(`SELECT name, generation FROM readstore_collections WHERE ${condition}`).all(generation) as {
      name: string;
      generation: number;
    }[];
    const dropped: string[] = [];
    for (const row of rows) {
      const table = this.table(row.name, row.generation);
      db.exec(`DROP TABLE IF EXISTS "${table}"`);
      db.exec(`DROP TABLE IF EXISTS "${table}__fts"`); // its full-text index, if any (with its shadow tables)
      dropped.push(table);
      for (const key of [...this.s.ensured]) if (key.startsWith(`${table}\u0000`)) this.s.ensured.delete(key);
      for (const sql of [...this.s.statements.keys()]) {
        if (sql.includes(`"${table}"`) || sql.includes(`"${table}__fts"`)) this.s.statements.delete(sql);
      }
    }
    db.prepare(`DELETE FROM readstore_collections WHERE ${condition}`).run(generation);
    db.prepare(`DELETE FROM readstore_checkpoints WHERE ${condition}`).run(generation);
    return dropped;
  }

  private statement(sql: string): Statement {
    let st = this.s.statements.get(sql);
    if (!st) {
      st = this.s.db.prepare(sql);
      this.s.statements.set(sql, st);
    }
    return st;
  }

  /** Runs a query on a table that may not exist (never declared in this generation, or dropped): undefined then. */
  private query(table: string, sql: string, run: (st: Statement) => unknown): unknown {
    const text = sql.replaceAll('$t', `"${table}"`);
    try {
      return run(this.statement(text));
    } catch (err) {
      if (err instanceof Error && /no such table/.test(err.message)) {
        this.s.statements.delete(text);
        return undefined;
      }
      throw err;
    }
  }
}

/** The SQL expression of a field: the id column, or the JSON path inside the document (as the indexes use it). */
function expr(field: string, alias?: string): string {
  const column = alias ? `${alias}.` : '';
  return field === 'id' ? `${column}id` : `json_extract(${column}doc, '$.${field}')`;
}

/** Read stores created before full-text search lack the column that holds a collection's fullText spec. */
function addFullTextColumn(db: Database.Database): void {
  const columns = db.prepare('PRAGMA table_info(readstore_collections)').all() as { name: string }[];
  if (columns.some((c) => c.name === 'full_text')) return;
  try {
    db.exec('ALTER TABLE readstore_collections ADD COLUMN full_text TEXT');
  } catch (err) {
    if (!(err instanceof Error && /duplicate column/.test(err.message))) throw err; // another process added it
  }
}

/** One token per scope, letters and digits only: a hash, so any scope value (a UUID with dashes) fits. */
function scopeKey(scope: string): string {
  return `k${createHash('sha256').update(scope).digest('hex').slice(0, 16)}`;
}

/** The FTS5 column of a document: every word of its full-text fields, each behind its scope's key. */
function indexedWords(collection: string, ft: FullTextSpec, doc: Doc): string {
  const scope = textField(doc, ft.scope);
  if (scope === null) throw new Error(`read model ${collection}: document ${doc.id} needs a string ${ft.scope} (full-text scope)`);
  const key = scopeKey(scope);
  const words: string[] = [];
  for (const field of ft.fields) for (const w of wordsOf(textField(doc, field) ?? '')) words.push(key + w.word);
  return words.join(' ');
}

/** SQLite has no booleans: JSON true/false come out of json_extract as 1/0. */
function bindable(value: Scalar): unknown {
  return typeof value === 'boolean' ? (value ? 1 : 0) : value;
}

function whereSql(where: NormalizedFind['where'], params: unknown[]): string[] {
  return where.map(([field, value]) => {
    if (value === null) return `${expr(field)} IS NULL`;
    params.push(bindable(value));
    return `${expr(field)} = ?`;
  });
}

/**
 * Rows strictly after `after` in the given order, null sorting lowest: an OR over "equal on the first i keys,
 * beyond on key i".
 */
function keysetSql(sort: SortKey[], after: Scalar[], params: unknown[]): string {
  const branches: string[] = [];
  for (let i = 0; i < sort.length; i++) {
    const key = sort[i]!;
    const value = after[i] ?? null;
    let beyond: string;
    const local: unknown[] = [];
    if (key.direction === 'asc') {
      if (value === null) beyond = `${expr(key.field)} IS NOT NULL`;
      else {
        beyond = `${expr(key.field)} > ?`;
        local.push(bindable(value));
      }
    } else {
      if (value === null) continue; // nothing sorts below null
      beyond = `(${expr(key.field)} < ? OR ${expr(key.field)} IS NULL)`;
      local.push(bindable(value));
    }
    const equal: string[] = [];
    const eqParams: unknown[] = [];
    for (let j = 0; j < i; j++) {
      const v = after[j] ?? null;
      if (v === null) equal.push(`${expr(sort[j]!.field)} IS NULL`);
      else {
        equal.push(`${expr(sort[j]!.field)} = ?`);
        eqParams.push(bindable(v));
      }
    }
    branches.push(`(${[...equal, beyond].join(' AND ')})`);
    params.push(...eqParams, ...local);
  }
  return branches.length ? `(${branches.join(' OR ')})` : '0';
}
