import Database from 'better-sqlite3';
import type { Logger } from '../../ports/logger.js';
import { silentLogger } from '../../ports/logger.js';
import { SAFETY_NET_PAGES, startWalCheckpointer, type WalCheckpointer } from './walCheckpointer.js';
import {
  StaleGenerationError,
  checkCollectionName,
  checkDoc,
  collapseOps,
  encodeCursor,
  indexKeys,
  normalizeFind,
  positionKey,
  type CollectionSpec,
  type Doc,
  type FindQuery,
  type NormalizedFind,
  type Page,
  type ReadStore,
  type ReadStoreRebuild,
  type Scalar,
  type SortKey,
  type WriteOp,
} from '../../ports/readStore.js';

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
    const shared: Shared = {
      db,
      logger: options.logger ?? silentLogger,
      specs: new Map(),
      ensured: new Set(),
      statements: new Map(),
      readTx: db.transaction((fn: () => unknown) => fn()),
      closed: false,
      checkpointer: onWorker ? startWalCheckpointer(options.path, { logger: options.logger }) : null,
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
    for (const spec of specs) indexKeys(spec); // validates
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

  async commit(projector: string, ops: WriteOp[], position: bigint): Promise<void> {
    const pos = positionKey(position);
    const collapsed = collapseOps(ops);
    for (const op of collapsed) {
      checkCollectionName(op.collection);
      if (op.kind === 'put') checkDoc(op.collection, op.doc);
    }
    // Serialize outside the transaction: a document that is not JSON fails before anything is written.
    const docs = collapsed.map((op) => (op.kind === 'put' ? JSON.stringify(op.doc) : null));
    const db = this.s.db;
    db.transaction(() => {
      const generation = this.writableGeneration();
      const current = this.statement('SELECT position FROM readstore_checkpoints WHERE projector = ? AND generation = ?').get(
        projector,
        generation,
      ) as { position: string } | undefined;
      if (current && current.position >= pos) return; // a replay: already applied
      collapsed.forEach((op, i) => {
        const spec = this.s.specs.get(op.collection);
        if (!spec) throw new Error(`read model collection ${op.collection} is not declared (ensureCollections first)`);
        const table = this.createTable(spec, generation);
        if (op.kind === 'put') {
          this.statement(
            `INSERT INTO "${table}" (id, doc, pos) VALUES (?, ?, ?)
             ON CONFLICT (id) DO UPDATE SET doc = excluded.doc, pos = excluded.pos WHERE excluded.pos > "${table}".pos`,
          ).run(op.doc.id, docs[i], pos);
        } else {
          this.statement(`DELETE FROM "${table}" WHERE id = ? AND pos < ?`).run(op.id, pos);
        }
      });
      this.statement(
        `INSERT INTO readstore_checkpoints (projector, generation, position) VALUES (?, ?, ?)
         ON CONFLICT (projector, generation) DO UPDATE SET position = excluded.position`,
      ).run(projector, generation, pos);
    }).immediate();
  }

  async reactorCheckpoint(reactor: string): Promise<bigint | null> {
    const row = this.statement('SELECT position FROM reactor_checkpoints WHERE reactor = ?').get(reactor) as { position: string } | undefined;
    return row ? BigInt(row.position) : null;
  }

  async saveReactorCheckpoint(reactor: string, position: bigint): Promise<void> {
    this.statement(
      `INSERT INTO reactor_checkpoints (reactor, position) VALUES (?, ?)
       ON CONFLICT (reactor) DO UPDATE SET position = excluded.position WHERE excluded.position > reactor_checkpoints.position`,
    ).run(reactor, positionKey(position));
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
      .prepare('SELECT indexes FROM readstore_collections WHERE name = ? ORDER BY generation DESC LIMIT 1')
      .get(collection) as { indexes: string } | undefined;
    return row ? { name: collection, indexes: JSON.parse(row.indexes) as CollectionSpec['indexes'] } : undefined;
  }

  private table(collection: string, generation: number): string {
    return `rm_${collection}_g${generation}`;
  }

  private createTable(spec: CollectionSpec, generation: number): string {
    const table = this.table(spec.name, generation);
    const key = `${table}\u0000${JSON.stringify(spec.indexes)}`;
    if (this.s.ensured.has(key)) return table;
    const db = this.s.db;
    db.exec(`CREATE TABLE IF NOT EXISTS "${table}" (id TEXT PRIMARY KEY, doc TEXT NOT NULL, pos TEXT NOT NULL)`);
    for (const fields of indexKeys(spec)) {
      const name = `${table}__${fields.join('__').replaceAll('.', '_')}`;
      db.exec(`CREATE INDEX IF NOT EXISTS "${name}" ON "${table}" (${[...fields.map(expr), 'id'].join(', ')})`);
    }
    db.prepare(
      `INSERT INTO readstore_collections (name, generation, indexes) VALUES (?, ?, ?)
       ON CONFLICT (name, generation) DO UPDATE SET indexes = excluded.indexes`,
    ).run(spec.name, generation, JSON.stringify(spec.indexes));
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
      dropped.push(table);
      for (const key of [...this.s.ensured]) if (key.startsWith(`${table}\u0000`)) this.s.ensured.delete(key);
      for (const sql of [...this.s.statements.keys()]) if (sql.includes(`"${table}"`)) this.s.statements.delete(sql);
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
function expr(field: string): string {
  return field === 'id' ? 'id' : `json_extract(doc, '$.${field}')`;
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
