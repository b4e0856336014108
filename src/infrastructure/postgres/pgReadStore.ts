import type pg from 'pg';
import type { Logger } from '../../ports/logger.js';
import { silentLogger } from '../../ports/logger.js';
import {
  ProjectionConflictError,
  StaleGenerationError,
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
import { encodeCursor, normalizeFind, type NormalizedFind } from '../readStore/find.js';
import { checkFullTextSpec, encodeSearchCursor, hitOf, normalizeSearch, orderValue, textField, wordsOf, type NormalizedSearch } from '../readStore/fullText.js';
import { checkCollectionName, collapseOps, fnv1a, indexKeys, positionKey } from '../readStore/specs.js';
import { migrate, type Migration } from './migrations.js';
import { inTransaction, openPgPool, redactConnectionString } from './pool.js';

export interface PgReadStoreOptions {
  connectionString: string;
  logger?: Logger;
  /** Shown in pg_stat_activity. */
  applicationName?: string;
  /** Connections kept by this store's pool (default 10). */
  poolSize?: number;
}

/**
 * `rm_key(value)`: a JSON value as one text key whose byte order (COLLATE "C") is the port's sort order: null and
 * missing first ('0'), then booleans ('1'), numbers ('2' + the IEEE-754 bits made sortable: sign bit flipped for
 * positives, every bit for negatives), strings ('3' + the string, compared by code point like SQLite and JS), then
 * anything else. One NOT NULL key per field keeps every index a plain btree over (keys…, id) that the planner can
 * read forwards or backwards, with row comparisons as cursors; jsonb's own ordering would compare strings by the
 * database's collation, which differs from server to server. Only pg_catalog functions inside, so the index
 * expressions survive a dump and restore with any search_path.
 */
const RM_KEY_SQL = `
CREATE OR REPLACE FUNCTION rm_key(v jsonb) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE
    WHEN v IS NULL OR jsonb_typeof(v) = 'null' THEN '0'
    WHEN jsonb_typeof(v) = 'boolean' THEN CASE WHEN v = 'true'::jsonb THEN '11' ELSE '10' END
    WHEN jsonb_typeof(v) = 'number' THEN '2' || lpad(to_hex(CASE WHEN v::float8 >= 0
        THEN ('x' || encode(float8send(v::float8 + 0.0), 'hex'))::bit(64)::bigint # (1::bigint << 63)
        ELSE ~ ('x' || encode(float8send(v::float8), 'hex'))::bit(64)::bigint END), 16, '0')
    WHEN jsonb_typeof(v) = 'string' THEN '3' || (v #>> '{}')
    ELSE '4' || v::text
  END
$$`;

/**
 * The read store's schema. Documents live in one table per collection and generation (`rm_<name>_g<generation>`:
 * id, doc jsonb, pos, ord) rather than one table with a collection column: each collection gets only its own
 * indexes (one shared table would need a partial index per collection and index, and statistics mixed across
 * collections mislead the planner), a switch-over drops a whole generation with DROP TABLE (instant, space given
 * back at once, where a DELETE of millions of rows would bloat and vacuum for hours), and a query's cost never
 * depends on the size of other collections.
 */
const MIGRATIONS: Migration[] = [
  {
    version: 1,
    description: 'read store: generations, collections, projector and reactor checkpoints, the sort-key function',
    sql: `
      CREATE TABLE rm_meta (key text PRIMARY KEY, value integer NOT NULL);
      INSERT INTO rm_meta (key, value) VALUES ('active_generation', 1), ('last_generation', 1);
      CREATE TABLE rm_collections (
        name text NOT NULL, generation integer NOT NULL, indexes jsonb NOT NULL, full_text jsonb,
        PRIMARY KEY (name, generation));
      CREATE TABLE rm_checkpoints (
        projector text NOT NULL, generation integer NOT NULL, position numeric(20, 0),
        PRIMARY KEY (projector, generation));
      CREATE TABLE rm_reactor_checkpoints (reactor text PRIMARY KEY, position numeric(20, 0) NOT NULL);
      ${RM_KEY_SQL};`,
  },
];

const COMPONENT = 'readstore';
const ACTIVE = 'active_generation';
const LAST = 'last_generation';
/** Serializes this store's DDL (CREATE TABLE IF NOT EXISTS races with itself on the catalog's unique indexes). */
const DDL_LOCK_KEY = 0x726d_5f64; // 'rm_d'
const UNDEFINED_TABLE = '42P01';
const DEADLOCK = '40P01';
const UNIQUE_VIOLATION = '23505';
/** A word never holds this code point (a noncharacter, not a letter, digit or mark): term + it bounds a prefix range. */
const PREFIX_END = '\u{10FFFF}';

interface Shared {
  pool: pg.Pool;
  logger: Logger;
  specs: Map<string, CollectionSpec>;
  /** `${table}\0${spec}` once created and recorded (DDL skipped after that). */
  ensured: Set<string>;
  /** The active generation last seen; a read that finds its table dropped reads it again (see read). */
  active: number | null;
  closed: boolean;
}

/**
 * PostgreSQL read models (see docs/architecture.md#ports-and-their-adapters). Documents are JSONB; every declared
 * index is an expression index over `rm_key(field)` keys and the id, so equality on its leading fields plus its
 * sort fields is one index range read in order, the page's limit stopping it. A commit writes its documents and
 * its checkpoint in one transaction holding the checkpoint row's lock, so two instances' commits of one projector
 * serialize and the second sees the first's checkpoint. Full-text words are the port's (readStore/fullText.ts),
 * kept per document in a words table `(scope, word, ord)` whose btree answers a prefix as a range.
 */
export class PgReadStore implements ReadStore {
  static async connect(options: PgReadStoreOptions): Promise<PgReadStore> {
    const where = redactConnectionString(options.connectionString);
    const logger = options.logger ?? silentLogger;
    let pool: pg.Pool;
    try {
      pool = openPgPool({ connectionString: options.connectionString, max: options.poolSize, applicationName: options.applicationName, logger });
    } catch (err) {
      // A malformed URL's error carries the whole input (with its password): never passed on.
      throw new Error(`read store: invalid PostgreSQL connection string ${where}: ${safeMessage(err, options.connectionString)}`);
    }
    try {
      const ran = await migrate(pool, COMPONENT, MIGRATIONS);
      if (ran.length > 0) logger.info({ versions: ran }, 'read store schema migrated');
    } catch (err) {
      await pool.end().catch(() => undefined);
      throw new Error(`read store: cannot prepare PostgreSQL at ${where}: ${safeMessage(err, options.connectionString)}`);
    }
    return new PgReadStore({ pool, logger, specs: new Map(), ensured: new Set(), active: null, closed: false }, null);
  }

  private aborted = false;

  private constructor(
    private readonly s: Shared,
    /** null: follows the active generation. */
    private readonly bound: number | null,
  ) {}

  atGeneration(generation: number): ReadStore {
    if (!Number.isInteger(generation) || generation < 1) throw new Error(`invalid generation ${generation}`);
    return new PgReadStore(this.s, generation);
  }

  async ensureCollections(specs: CollectionSpec[]): Promise<void> {
    for (const spec of specs) {
      indexKeys(spec); // validates
      if (spec.fullText) checkFullTextSpec(spec.name, spec.fullText);
    }
    const created: string[] = [];
    await this.transaction(async (c) => {
      const generation = await this.writableGeneration(c);
      for (const spec of specs) {
        this.s.specs.set(spec.name, spec);
        const key = await this.createTable(c, spec, generation);
        if (key) created.push(key);
      }
    });
    for (const key of created) this.s.ensured.add(key);
  }

  async get<T extends Doc = Doc>(collection: string, id: string): Promise<T | null> {
    checkCollectionName(collection);
    const rows = await this.read(collection, (t) => ({ text: `SELECT doc FROM "${t.docs}" WHERE id = $1`, values: [pgText(id)] }));
    return rows[0] ? (rows[0].doc as T) : null;
  }

  async find<T extends Doc = Doc>(collection: string, query?: FindQuery): Promise<Page<T>> {
    checkCollectionName(collection);
    const q = normalizeFind(collection, query, await this.spec(collection));
    const rows = await this.read(collection, (t) => findSql(t.docs, q));
    const items = rows.slice(0, q.limit).map((r) => r.doc as T);
    return { items, nextCursor: rows.length > q.limit ? encodeCursor(q, items.at(-1)!) : null };
  }

  /** The plan PostgreSQL chooses for a find (for operators and the index tests): EXPLAIN's text. */
  async explainFind(collection: string, query?: FindQuery): Promise<string> {
    checkCollectionName(collection);
    const q = normalizeFind(collection, query, await this.spec(collection));
    const rows = await this.read(collection, (t) => {
      const sql = findSql(t.docs, q);
      return { text: `EXPLAIN ${sql.text}`, values: sql.values };
    });
    return rows.map((r) => (r as unknown as { 'QUERY PLAN': string })['QUERY PLAN']).join('\n');
  }

  /** The plan PostgreSQL chooses for a search (for operators and the index tests): EXPLAIN's text. */
  async explainSearch(collection: string, query: SearchQuery): Promise<string> {
    checkCollectionName(collection);
    const q = normalizeSearch(collection, query);
    if (q.terms.length === 0) return '';
    const rows = await this.read(collection, (t) => {
      const sql = searchSql(t, q);
      return { text: `EXPLAIN ${sql.text}`, values: sql.values };
    });
    return rows.map((r) => (r as unknown as { 'QUERY PLAN': string })['QUERY PLAN']).join('\n');
  }

  async count(collection: string, where?: Record<string, Scalar>): Promise<number> {
    checkCollectionName(collection);
    const q = normalizeFind(collection, { where }, await this.spec(collection));
    const rows = await this.read(collection, (t) => {
      const values: unknown[] = [];
      const conditions = whereSql(q.where, values);
      return { text: `SELECT count(*) AS n FROM "${t.docs}"${conditions.length ? ` WHERE ${conditions.join(' AND ')}` : ''}`, values };
    });
    return rows[0] ? Number((rows[0] as unknown as { n: string }).n) : 0;
  }

  /**
   * The scope's documents holding a word that begins with each term, highest order first. The longest term drives
   * (likely the rarest): a range of the words index `(scope, word, ord)` gives its documents' order values, each
   * checked for the other terms through the index `(scope, ord, word)`; the page's order values then fetch the documents
   * through the unique index on `ord`. Other scopes' words are never read.
   */
  async search<T extends Doc = Doc>(collection: string, query: SearchQuery): Promise<Page<SearchHit<T>>> {
    checkCollectionName(collection);
    const ft = (await this.spec(collection))?.fullText;
    if (!ft) throw new Error(`read model collection ${collection} has no fullText index`);
    const q = normalizeSearch(collection, query);
    if (q.terms.length === 0) return { items: [], nextCursor: null };
    const rows = await this.read(collection, (t) => searchSql(t, q));
    const items = rows.slice(0, q.limit).map((r) => hitOf(r.doc as T, ft, q.terms, true));
    const last = items.at(-1);
    return { items, nextCursor: rows.length > q.limit && last ? encodeSearchCursor(q, orderValue(collection, ft, last.doc)) : null };
  }

  async commit(projector: string, ops: WriteOp[], position: bigint, after?: bigint | null): Promise<void> {
    const pos = positionKey(position);
    const collapsed = collapseOps(ops);
    for (const op of collapsed) {
      checkCollectionName(op.collection);
      if (!this.s.specs.has(op.collection)) throw new Error(`read model collection ${op.collection} is not declared (ensureCollections first)`);
      if (op.kind === 'put') checkDoc(op.collection, op.doc);
    }
    // Everything that can fail on a document fails here, before the transaction: serialization, order, scope.
    const groups = new Map<string, PreparedOp[]>();
    for (const op of collapsed) {
      const ft = this.s.specs.get(op.collection)!.fullText;
      const prepared: PreparedOp =
        op.kind === 'put'
          ? { id: pgText(op.doc.id), json: toJson(op.doc), ord: ft ? orderValue(op.collection, ft, op.doc) : null, words: ft ? searchEntry(op.collection, ft, op.doc) : null }
          : { id: pgText(op.id), json: null, ord: null, words: null };
      const group = groups.get(op.collection) ?? [];
      group.push(prepared);
      groups.set(op.collection, group);
    }
    // Every commit locks rows in one order (collection, then id: see writeGroup), so two commits touching the same
    // documents wait for each other rather than deadlock; a deadlock that still happens is retried (retryDeadlock).
    const ordered = [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

    const created: string[] = [];
    await this.retryDeadlock(() =>
      this.transaction(async (c) => {
        created.length = 0;
        const generation = await this.writableGeneration(c);
        // The checkpoint row, locked until the transaction ends (created first if need be, so a projector's very
        // first commits serialize too): a second instance's commit waits here and then reads this one's checkpoint.
        // One statement does both; it is SELECT … FOR UPDATE for a row that may not exist yet.
        const row = await c.query<{ position: string | null }>(
          `INSERT INTO rm_checkpoints (projector, generation, position) VALUES ($1, $2, NULL)
           ON CONFLICT (projector, generation) DO UPDATE SET position = rm_checkpoints.position RETURNING position`,
          [projector, generation],
        );
        const current = row.rows[0]?.position ?? null;
        if (current !== null && BigInt(current) >= position) return; // a replay: already applied
        if (after !== undefined && (current === null ? null : BigInt(current)) !== after) {
          throw new ProjectionConflictError(projector, after, current);
        }
        for (const [name, group] of ordered) {
          const spec = this.s.specs.get(name)!;
          const key = await this.createTable(c, spec, generation);
          if (key) created.push(key);
          await this.writeGroup(c, this.tables(name, generation), spec, group, pos);
        }
        await c.query('UPDATE rm_checkpoints SET position = $3 WHERE projector = $1 AND generation = $2', [projector, generation, pos]);
      }),
    );
    for (const key of created) this.s.ensured.add(key);
  }

  async checkpoint(projector: string): Promise<bigint | null> {
    const { rows } =
      this.bound === null
        ? await this.s.pool.query<{ position: string | null }>(
            `SELECT position FROM rm_checkpoints WHERE projector = $1 AND generation = (SELECT value FROM rm_meta WHERE key = '${ACTIVE}')`,
            [projector],
          )
        : await this.s.pool.query<{ position: string | null }>('SELECT position FROM rm_checkpoints WHERE projector = $1 AND generation = $2', [
            projector,
            this.bound,
          ]);
    const position = rows[0]?.position ?? null;
    return position === null ? null : BigInt(position);
  }

  async reactorCheckpoint(reactor: string): Promise<bigint | null> {
    const { rows } = await this.s.pool.query<{ position: string }>('SELECT position FROM rm_reactor_checkpoints WHERE reactor = $1', [reactor]);
    return rows[0] ? BigInt(rows[0].position) : null;
  }

  async saveReactorCheckpoint(reactor: string, position: bigint): Promise<void> {
    await this.s.pool.query(
      `INSERT INTO rm_reactor_checkpoints (reactor, position) VALUES ($1, $2)
       ON CONFLICT (reactor) DO UPDATE SET position = excluded.position WHERE rm_reactor_checkpoints.position < excluded.position`,
      [reactor, positionKey(position)],
    );
  }

  async startRebuild(): Promise<ReadStoreRebuild> {
    const { rows } = await this.s.pool.query<{ value: number }>(
      // `value` is the row's latest version even after waiting for another rebuild's update of it (a subquery over
      // the row would still see the older one, and two rebuilds would share a generation).
      `UPDATE rm_meta SET value = GREATEST(value, (SELECT value FROM rm_meta WHERE key = '${ACTIVE}')) + 1 WHERE key = '${LAST}' RETURNING value`,
    );
    const generation = rows[0]!.value;
    const store = new PgReadStore(this.s, generation);
    this.s.logger.info({ generation }, 'read store rebuild started');
    return {
      generation,
      store,
      switchOver: async () => {
        if (store.aborted) throw new Error(`read store generation ${generation} was aborted`);
        const dropped = await this.transaction(async (c) => {
          // The row lock waits for every commit in progress (they hold it shared) and holds new ones back.
          const active = await lockedActive(c, 'FOR UPDATE');
          if (active >= generation) throw new Error(`cannot switch to read store generation ${generation}: generation ${active} is active`);
          await c.query('UPDATE rm_meta SET value = $1 WHERE key = $2', [generation, ACTIVE]);
          return this.dropGenerations(c, 'generation < $1', generation);
        });
        this.s.active = generation;
        this.s.logger.info({ generation, droppedTables: dropped }, 'read store switched to the rebuilt generation');
      },
      abort: async () => {
        if (store.aborted) return;
        await this.transaction(async (c) => {
          const active = await lockedActive(c, 'FOR UPDATE');
          if (active === generation) throw new Error(`read store generation ${generation} is already active`);
          await this.dropGenerations(c, 'generation = $1', generation);
        });
        store.aborted = true;
        this.s.logger.warn({ generation }, 'read store rebuild aborted; its generation was dropped');
      },
    };
  }

  async activeGeneration(): Promise<number> {
    if (this.bound !== null) return this.bound;
    return this.refreshActive();
  }

  async close(): Promise<void> {
    if (this.bound !== null || this.s.closed) return; // views share the pool of their store
    this.s.closed = true;
    await this.s.pool.end();
  }

  // --- internals -------------------------------------------------------------------------------------------

  private async refreshActive(): Promise<number> {
    const { rows } = await this.s.pool.query<{ value: number }>('SELECT value FROM rm_meta WHERE key = $1', [ACTIVE]);
    if (!rows[0]) throw new Error(`rm_meta is missing ${ACTIVE}`);
    this.s.active = rows[0].value;
    return rows[0].value;
  }

  /**
   * Runs a query on a collection's tables in the generation read from. Following the active generation, the last
   * one seen is used without asking: a switch-over drops the older generation's tables in the transaction that
   * moves the active generation, so a table still there means its generation was still active when the query ran.
   * A missing table is asked about once more: a newer generation (retried there) or a collection never declared in
   * this one (nothing found).
   */
  private async read(collection: string, build: (t: Tables) => { text: string; values: unknown[] }): Promise<{ doc: Doc }[]> {
    for (let attempt = 0; ; attempt++) {
      const generation = this.bound ?? this.s.active ?? (await this.refreshActive());
      try {
        const { rows } = await this.s.pool.query<{ doc: Doc }>(build(this.tables(collection, generation)));
        return rows;
      } catch (err) {
        if (pgCode(err) !== UNDEFINED_TABLE) throw err;
        if (this.bound !== null) return [];
        const now = await this.refreshActive();
        if (now === generation || attempt >= 3) return [];
      }
    }
  }

  private async transaction<R>(work: (c: pg.PoolClient) => Promise<R>): Promise<R> {
    if (this.s.closed) throw new Error('the read store is closed');
    return inTransaction(this.s.pool, work);
  }

  /** A deadlock (PostgreSQL aborts one side) rolled the whole transaction back: it runs again. */
  private async retryDeadlock<R>(work: () => Promise<R>): Promise<R> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await work();
      } catch (err) {
        if (pgCode(err) !== DEADLOCK || attempt >= 5) throw err;
        this.s.logger.warn({ attempt }, 'read store commit hit a deadlock; retrying');
      }
    }
  }

  /** The generation writes go to, with the active generation's row held shared until the transaction ends. */
  private async writableGeneration(c: pg.PoolClient): Promise<number> {
    if (this.aborted) throw new Error(`read store generation ${this.bound} was aborted`);
    const active = await lockedActive(c, 'FOR SHARE');
    if (this.bound === null) return active;
    if (this.bound < active) throw new StaleGenerationError(this.bound, active);
    return this.bound;
  }

  private async spec(collection: string): Promise<CollectionSpec | undefined> {
    const known = this.s.specs.get(collection);
    if (known) return known;
    const { rows } = await this.s.pool.query<{ indexes: CollectionSpec['indexes']; full_text: FullTextSpec | null }>(
      'SELECT indexes, full_text FROM rm_collections WHERE name = $1 ORDER BY generation DESC LIMIT 1',
      [collection],
    );
    if (!rows[0]) return undefined;
    const spec: CollectionSpec = { name: collection, indexes: rows[0].indexes };
    if (rows[0].full_text) spec.fullText = rows[0].full_text;
    return spec;
  }

  private tables(collection: string, generation: number): Tables {
    const docs = identifier(`rm_${collection}_g${generation}`);
    return { docs, words: identifier(`${docs}__words`) };
  }

  /**
   * Creates a collection's tables and indexes in a generation unless rm_collections already records them with
   * this very spec (DDL takes table locks; repeated at every start it would wait for the commits in progress).
   * Returns the cache key to remember once the transaction has committed, or null when known already.
   */
  private async createTable(c: pg.PoolClient, spec: CollectionSpec, generation: number): Promise<string | null> {
    const t = this.tables(spec.name, generation);
    const indexes = JSON.stringify(spec.indexes);
    const fullText = spec.fullText ? JSON.stringify(spec.fullText) : null;
    const key = `${t.docs}\u0000${indexes}\u0000${fullText}`;
    if (this.s.ensured.has(key)) return null;
    await c.query('SELECT pg_advisory_xact_lock($1)', [DDL_LOCK_KEY]);
    const recorded = await c.query<{ indexes: unknown; full_text: unknown }>('SELECT indexes, full_text FROM rm_collections WHERE name = $1 AND generation = $2', [
      spec.name,
      generation,
    ]);
    const row = recorded.rows[0];
    if (row && JSON.stringify(row.indexes) === indexes && JSON.stringify(row.full_text) === (fullText ?? 'null')) return key;
    await c.query(`CREATE TABLE IF NOT EXISTS "${t.docs}" (id text COLLATE "C" PRIMARY KEY, doc jsonb NOT NULL, pos numeric(20, 0) NOT NULL, ord bigint)`);
    for (const fields of indexKeys(spec)) {
      const name = identifier(`${t.docs}__${fields.join('__').replaceAll('.', '_')}`);
      await c.query(`CREATE INDEX IF NOT EXISTS "${name}" ON "${t.docs}" (${[...fields.map((f) => keyExpr(f)), 'id'].join(', ')})`);
    }
    if (spec.fullText) {
      await c.query(`CREATE UNIQUE INDEX IF NOT EXISTS "${identifier(`${t.docs}__ord`)}" ON "${t.docs}" (ord)`);
      await c.query(
        `CREATE TABLE IF NOT EXISTS "${t.words}" (scope text COLLATE "C" NOT NULL, word text COLLATE "C" NOT NULL, ord bigint NOT NULL,
         PRIMARY KEY (scope, word, ord))`,
      );
      // The scope leads here too: whichever index the planner walks (a term's range of words, or the scope's
      // newest documents first when a term is common), it never reads another scope's entries.
      await c.query(`CREATE INDEX IF NOT EXISTS "${identifier(`${t.words}__scope_ord`)}" ON "${t.words}" (scope, ord, word)`);
    }
    await c.query(
      `INSERT INTO rm_collections (name, generation, indexes, full_text) VALUES ($1, $2, $3, $4)
       ON CONFLICT (name, generation) DO UPDATE SET indexes = excluded.indexes, full_text = excluded.full_text`,
      [spec.name, generation, indexes, fullText],
    );
    return key;
  }

  /**
   * One collection's share of a commit: the documents' rows locked, those written at a newer position left alone
   * (another projector got there first), then the rest written in one statement per kind, with their words.
   */
  private async writeGroup(c: pg.PoolClient, t: Tables, spec: CollectionSpec, group: PreparedOp[], pos: string): Promise<void> {
    const ids = group.map((op) => op.id);
    const scope = spec.fullText ? `doc #>> '{${spec.fullText.scope.split('.').join(',')}}'` : 'NULL';
    const existing = await c.query<{ id: string; pos: string; ord: string | null; scope: string | null }>(
      `SELECT id, pos, ord, ${scope} AS scope FROM "${t.docs}" WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE`,
      [ids],
    );
    const current = new Map(existing.rows.map((r) => [r.id, r]));
    const live = group.filter((op) => {
      const row = current.get(op.id);
      return !row || BigInt(row.pos) < BigInt(pos);
    });
    const puts = live.filter((op) => op.json !== null);
    const deletes = live.filter((op) => op.json === null && current.has(op.id));
    if (spec.fullText) {
      const stale = live.map((op) => current.get(op.id)).filter((r) => r !== undefined && r.ord !== null && r.scope !== null);
      if (stale.length > 0) {
        await c.query(`DELETE FROM "${t.words}" w USING unnest($1::text[], $2::bigint[]) AS o(scope, ord) WHERE w.scope = o.scope AND w.ord = o.ord`, [
          stale.map((r) => r!.scope),
          stale.map((r) => r!.ord),
        ]);
      }
    }
    if (deletes.length > 0) {
      await c.query(`DELETE FROM "${t.docs}" WHERE id = ANY($1::text[]) AND pos < $2`, [deletes.map((op) => op.id), pos]);
    }
    if (puts.length === 0) return;
    let written: Set<string>;
    try {
      // The position guard again: a document first written by a commit running alongside (it was not there to
      // lock) is replaced only by a newer position; only the documents written here get their words.
      const result = await c.query<{ id: string }>(
        `INSERT INTO "${t.docs}" AS t (id, doc, pos, ord)
         SELECT i.id, i.doc, $3, i.ord FROM unnest($1::text[], $2::jsonb[], $4::bigint[]) AS i(id, doc, ord)
         ON CONFLICT (id) DO UPDATE SET doc = excluded.doc, pos = excluded.pos, ord = excluded.ord WHERE t.pos < excluded.pos
         RETURNING t.id`,
        [puts.map((op) => op.id), puts.map((op) => op.json), pos, puts.map((op) => op.ord)],
      );
      written = new Set(result.rows.map((r) => r.id));
    } catch (err) {
      if (pgCode(err) === UNIQUE_VIOLATION && spec.fullText) {
        throw new Error(`read model ${spec.name}: two documents share a full-text order value (${spec.fullText.order} must be unique)`);
      }
      throw err;
    }
    if (spec.fullText) {
      const scopes: string[] = [];
      const words: string[] = [];
      const ords: number[] = [];
      for (const op of puts) {
        if (!written.has(op.id)) continue;
        for (const word of op.words!.words) {
          scopes.push(op.words!.scope);
          words.push(word);
          ords.push(op.ord!);
        }
      }
      if (words.length > 0) {
        await c.query(`INSERT INTO "${t.words}" (scope, word, ord) SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[])`, [scopes, words, ords]);
      }
    }
  }

  /** Drops every table of the matching generations with their checkpoints; returns the tables dropped. */
  private async dropGenerations(c: pg.PoolClient, condition: string, generation: number): Promise<string[]> {
    const { rows } = await c.query<{ name: string; generation: number }>(`SELECT name, generation FROM rm_collections WHERE ${condition}`, [generation]);
    const dropped: string[] = [];
    for (const row of rows) {
      const t = this.tables(row.name, row.generation);
      await c.query(`DROP TABLE IF EXISTS "${t.docs}", "${t.words}"`);
      dropped.push(t.docs);
      for (const key of [...this.s.ensured]) if (key.startsWith(`${t.docs}\u0000`)) this.s.ensured.delete(key);
    }
    await c.query(`DELETE FROM rm_collections WHERE ${condition}`, [generation]);
    await c.query(`DELETE FROM rm_checkpoints WHERE ${condition}`, [generation]);
    return dropped;
  }
}

interface Tables {
  docs: string;
  words: string;
}

interface PreparedOp {
  id: string;
  /** The document as JSON; null for a delete. */
  json: string | null;
  ord: number | null;
  words: { scope: string; words: string[] } | null;
}

async function lockedActive(c: pg.PoolClient, lock: 'FOR SHARE' | 'FOR UPDATE'): Promise<number> {
  const { rows } = await c.query<{ value: number }>(`SELECT value FROM rm_meta WHERE key = $1 ${lock}`, [ACTIVE]);
  if (!rows[0]) throw new Error(`rm_meta is missing ${ACTIVE}`);
  return rows[0].value;
}

/** A table or index name within PostgreSQL's 63 bytes: longer ones keep a readable start and a hash of the whole. */
function identifier(name: string): string {
  return name.length <= 63 ? name : `${name.slice(0, 50)}_${fnv1a(name)}`;
}

/** The sort key of a field, exactly as the indexes declare it (the planner matches expressions literally). */
function keyExpr(field: string, alias?: string): string {
  const column = alias ? `${alias}.` : '';
  if (field === 'id') return `${column}id`;
  const path = field.split('.');
  const value = path.length === 1 ? `${column}doc -> '${field}'` : `${column}doc #> '{${path.join(',')}}'`;
  return `(rm_key(${value}) COLLATE "C")`;
}

/** The key of a value given as a parameter, computed by the same function as the stored ones. */
function paramKey(field: string, value: Scalar, values: unknown[]): string {
  if (field === 'id') {
    values.push(pgText(String(value)));
    return `$${values.length}::text COLLATE "C"`;
  }
  values.push(toJson(value));
  return `(rm_key($${values.length}::jsonb) COLLATE "C")`;
}

function whereSql(where: NormalizedFind['where'], values: unknown[]): string[] {
  return where.map(([field, value]) => (field === 'id' && value === null ? 'false' : `${keyExpr(field)} = ${paramKey(field, value, values)}`));
}

/**
 * A page: equality on the where fields, the sort keys in order, and after a cursor the rows beyond it. When every
 * key runs one way (the usual case: the id follows the last key's direction) that is one row comparison, which
 * the btree reads as a range start; mixed directions expand to an OR of "equal on the first i keys, beyond on key
 * i". The keys are NOT NULL (rm_key maps null and missing to the lowest key), so neither form needs NULL cases.
 */
function findSql(table: string, q: NormalizedFind): { text: string; values: unknown[] } {
  const values: unknown[] = [];
  const conditions = whereSql(q.where, values);
  if (q.after) {
    const after = q.after;
    const direction = q.sort[0]!.direction;
    if (q.sort.every((k) => k.direction === direction)) {
      const op = direction === 'asc' ? '>' : '<';
      const left = q.sort.map((k) => keyExpr(k.field)).join(', ');
      const right = q.sort.map((k, i) => paramKey(k.field, after[i] ?? null, values)).join(', ');
      conditions.push(`(${left}) ${op} (${right})`);
    } else {
      const branches = q.sort.map((key, i) => {
        const equal = q.sort.slice(0, i).map((k, j) => `${keyExpr(k.field)} = ${paramKey(k.field, after[j] ?? null, values)}`);
        const beyond = `${keyExpr(key.field)} ${key.direction === 'asc' ? '>' : '<'} ${paramKey(key.field, after[i] ?? null, values)}`;
        return `(${[...equal, beyond].join(' AND ')})`;
      });
      conditions.push(`(${branches.join(' OR ')})`);
    }
  }
  const order = q.sort.map((k) => `${keyExpr(k.field)} ${k.direction === 'asc' ? 'ASC' : 'DESC'}`).join(', ');
  values.push(q.limit + 1);
  return {
    text: `SELECT doc FROM "${table}"${conditions.length ? ` WHERE ${conditions.join(' AND ')}` : ''} ORDER BY ${order} LIMIT $${values.length}`,
    values,
  };
}

/** See search: the longest term drives through (scope, word, ord), the others are checked through (scope, ord, word). */
function searchSql(t: Tables, q: NormalizedSearch): { text: string; values: unknown[] } {
  const terms = [...q.terms].sort((a, b) => b.length - a.length);
  const values: unknown[] = [pgText(q.scope), terms[0], terms[0] + PREFIX_END];
  let inner = `SELECT DISTINCT w.ord FROM "${t.words}" w WHERE w.scope = $1 AND w.word >= $2 AND w.word < $3`;
  if (q.before !== null) {
    values.push(q.before);
    inner += ` AND w.ord < $${values.length}`;
  }
  for (const term of terms.slice(1)) {
    values.push(term, term + PREFIX_END);
    inner += ` AND EXISTS (SELECT 1 FROM "${t.words}" x WHERE x.scope = $1 AND x.ord = w.ord AND x.word >= $${values.length - 1} AND x.word < $${values.length})`;
  }
  values.push(q.limit + 1);
  inner += ` ORDER BY w.ord DESC LIMIT $${values.length}`;
  return { text: `SELECT d.doc FROM "${t.docs}" d JOIN (${inner}) m ON d.ord = m.ord ORDER BY d.ord DESC`, values };
}

/**
 * Text as PostgreSQL can hold it: U+0000 and lone surrogates (which neither text nor jsonb accept) become U+FFFD.
 * SQLite would keep them; here a message holding one would otherwise stop its projection for good. Values in
 * queries go through the same replacement, so they still find what was stored.
 */
function pgText(text: string): string {
  return unstorable.test(text) ? text.replace(unstorableAll, '\uFFFD') : text;
}
const unstorableSource = '\\u0000|[\\uD800-\\uDBFF](?![\\uDC00-\\uDFFF])|(?<![\\uD800-\\uDBFF])[\\uDC00-\\uDFFF]';
const unstorable = new RegExp(unstorableSource);
const unstorableAll = new RegExp(unstorableSource, 'g');

/** A value as JSON text for jsonb (see pgText). */
function toJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'string' ? pgText(v) : v));
}

/** The distinct words of a document's full-text fields and its scope. */
function searchEntry(collection: string, ft: FullTextSpec, doc: Doc): { scope: string; words: string[] } {
  const scope = textField(doc, ft.scope);
  if (scope === null) throw new Error(`read model ${collection}: document ${doc.id} needs a string ${ft.scope} (full-text scope)`);
  const words = new Set<string>();
  for (const field of ft.fields) for (const w of wordsOf(textField(doc, field) ?? '')) words.add(w.word);
  return { scope: pgText(scope), words: [...words] };
}

function pgCode(err: unknown): string | undefined {
  return (err as { code?: string } | null)?.code;
}

/** An error's message without the connection string or its password, whatever the driver put in it. */
function safeMessage(err: unknown, connectionString: string): string {
  let message = err instanceof Error ? err.message : String(err);
  message = message.replaceAll(connectionString, redactConnectionString(connectionString));
  try {
    const password = decodeURIComponent(new URL(connectionString).password);
    if (password) message = message.replaceAll(password, '***');
  } catch {
    // unparseable: nothing more to find
  }
  return message;
}
