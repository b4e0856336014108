import {
  MongoBulkWriteError,
  MongoClient,
  MongoServerError,
  type AnyBulkWriteOperation,
  type ClientSession,
  type Collection,
  type Db,
  type Document,
} from 'mongodb';
import type { Logger } from '../../ports/logger.js';
import { silentLogger } from '../../ports/logger.js';
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
import { checkFullTextSpec, encodeSearchCursor, hitOf, normalizeSearch, orderValue } from '../readStore/fullText.js';
import { checkCollectionName, collapseOps, indexKeys, positionKey } from '../readStore/specs.js';
import { WORDS_FIELD, searchIndexKeys, searchWords } from './searchWords.js';
import {
  CONVERT_LEGACY_TOMBSTONE,
  LEGACY_TOMBSTONES,
  LIVE,
  TOMBSTONE_TTL_INDEX,
  TOMBSTONE_TTL_SECONDS,
  queryIndex,
  tombstone,
  writtenBefore,
  writtenSince,
} from './tombstones.js';

export interface MongoReadStoreOptions {
  /** Connection string; the client is created, connected and closed by the store. */
  uri?: string;
  /** Or an existing client, left open by close(). */
  client?: MongoClient;
  /** Database name; default: the one in the URI, else the driver's default. */
  dbName?: string;
  /**
   * 'auto' (default): a commit is one transaction (documents + checkpoint) when the deployment supports them
   * (replica set, sharded cluster); otherwise, and with 'never', documents are written with per-document
   * position guards and the checkpoint after them.
   */
  transactions?: 'auto' | 'always' | 'never';
  logger?: Logger;
}

interface MetaDoc {
  _id: string;
  active: number;
  last: number;
}

interface CheckpointDoc {
  _id: string;
  projector: string;
  generation: number;
  position: string;
}

interface RegistryDoc {
  _id: string;
  name: string;
  generation: number;
  indexes: CollectionSpec['indexes'];
  fullText?: FullTextSpec | null;
  /** The collection's documents all carry their search words (WORDS_FIELD): set once any older ones are filled in. */
  words?: boolean;
  /** The collection's tombstones are all in the current form (tombstones.ts): set once older ones are converted. */
  tombstones?: boolean;
}

/** A read model document as stored: `{_id, ...doc, _pos}`, or a tombstone `{_id, _tpos, _del: true, _delAt}` (tombstones.ts). */
type StoredDoc = Document & { _id: string };

interface Shared {
  client: MongoClient;
  ownsClient: boolean;
  db: Db;
  meta: Collection<MetaDoc>;
  checkpoints: Collection<CheckpointDoc>;
  registry: Collection<RegistryDoc>;
  specs: Map<string, CollectionSpec>;
  /** Physical collections whose indexes this instance created. */
  ensured: Set<string>;
  transactions: boolean;
  logger: Logger;
}

const META_ID = 'generation';
const DUPLICATE_KEY = 11000;
const NAMESPACE_NOT_FOUND = 26;
const INDEX_NOT_FOUND = 27;
/** Fields of a stored document that are the store's own, never the read model's. */
const HIDDEN = { _pos: 0, _del: 0, [WORDS_FIELD]: 0 } as const;
/** The search index's name; `fulltext` was the `$text` index of earlier versions (dropped where found). */
const SEARCH_INDEX = 'search_words';
const LEGACY_TEXT_INDEX = 'fulltext';

/**
 * The production read store. Each collection of each generation is a MongoDB collection `<name>_g<generation>`
 * holding `{_id: id, ...doc, _pos}` where `_pos` is the position that wrote it as a fixed-width decimal string
 * (compared as a string, never a lossy number). A delete leaves a tombstone `{_id, _tpos, _del: true, _delAt}` so
 * that a replayed older put cannot resurrect the document; tombstones are kept out of the query indexes (partial
 * on live documents) and expire after TOMBSTONE_TTL_SECONDS (tombstones.ts argues the bound). Every write
 * applies only over an older version.
 *
 * On a replica set (or sharded cluster) a commit is one transaction: documents and checkpoint together, as in
 * SQLite. On a standalone server the checkpoint follows the documents; a crash between them replays the batch,
 * which the guards make harmless when the replayed batch ends at the same position, but a projection that
 * accumulates (a counter) could count a replayed event twice if the replay ends later. Nor is the checkpoint
 * check atomic with the writes there, so two processors running one projection can lose an update (the position
 * guard keeps the newer document, not both increments): one processor per standalone store (a warning at
 * connect says so), or a replica set, which production runs.
 *
 * Checkpoints are documents `{_id: projector@g<generation>}` in `readstore_checkpoints`, only ever moved
 * forward; `readstore_meta` holds the active generation and `readstore_collections` the declared collections of
 * every generation.
 */
export class MongoReadStore implements ReadStore {
  static async connect(options: MongoReadStoreOptions): Promise<MongoReadStore> {
    let client = options.client;
    const ownsClient = !client;
    if (!client) {
      if (!options.uri) throw new Error('MongoReadStore needs a uri or a client');
      client = new MongoClient(options.uri);
      await client.connect();
    }
    try {
      const db = client.db(options.dbName);
      const meta = db.collection<MetaDoc>('readstore_meta');
      try {
        await meta.updateOne({ _id: META_ID }, { $setOnInsert: { active: 1, last: 1 } }, { upsert: true });
      } catch (err) {
        if (!isDuplicateKey(err)) throw err; // another instance created it at the same moment
      }
      const registry = db.collection<RegistryDoc>('readstore_collections');
      await registry.createIndex({ generation: 1 });
      const mode = options.transactions ?? 'auto';
      let transactions = mode === 'always';
      if (mode === 'auto') {
        const hello = await db.admin().command({ hello: 1 });
        transactions = Boolean(hello.setName) || hello.msg === 'isdbgrid';
      }
      if (!transactions) {
        (options.logger ?? silentLogger).warn(
          'MongoDB without transactions (a standalone server): two processors running one projection can lose an update; run one processor per read store, or a replica set (docs/operations.md)',
        );
      }
      const shared: Shared = {
        client,
        ownsClient,
        db,
        meta,
        checkpoints: db.collection<CheckpointDoc>('readstore_checkpoints'),
        registry,
        specs: new Map(),
        ensured: new Set(),
        transactions,
        logger: options.logger ?? silentLogger,
      };
      return new MongoReadStore(shared, null);
    } catch (err) {
      if (ownsClient) await client.close();
      throw err;
    }
  }

  private aborted = false;

  private constructor(
    private readonly s: Shared,
    /** null: follows the active generation. */
    private readonly bound: number | null,
  ) {}

  /** Whether commits run as transactions (for logs and tests). */
  get usesTransactions(): boolean {
    return this.s.transactions;
  }

  atGeneration(generation: number): ReadStore {
    if (!Number.isInteger(generation) || generation < 1) throw new Error(`invalid generation ${generation}`);
    return new MongoReadStore(this.s, generation);
  }

  async ensureCollections(specs: CollectionSpec[]): Promise<void> {
    for (const spec of specs) {
      indexKeys(spec); // validates
      if (spec.fullText) checkFullTextSpec(spec.name, spec.fullText);
    }
    const generation = await this.writableGeneration();
    for (const spec of specs) {
      this.s.specs.set(spec.name, spec);
      await this.createIndexes(spec, generation);
    }
  }

  async get<T extends Doc = Doc>(collection: string, id: string): Promise<T | null> {
    checkCollectionName(collection);
    const coll = this.collection(collection, await this.generation());
    const stored = await coll.findOne({ _id: id, _del: { $ne: true } }, { projection: HIDDEN });
    return stored ? (fromStored(stored) as T) : null;
  }

  async find<T extends Doc = Doc>(collection: string, query?: FindQuery): Promise<Page<T>> {
    checkCollectionName(collection);
    const q = normalizeFind(collection, query, await this.spec(collection));
    const filter = whereFilter(q.where);
    if (q.after) filter.$and = [keysetFilter(q.sort, q.after)];
    const sort: Record<string, 1 | -1> = {};
    for (const key of q.sort) sort[mongoField(key.field)] = key.direction === 'asc' ? 1 : -1;
    const rows = await this.collection(collection, await this.generation())
      .find(filter, { projection: HIDDEN })
      .sort(sort)
      .limit(q.limit + 1)
      .toArray();
    const items = rows.slice(0, q.limit).map((r) => fromStored(r) as T);
    return { items, nextCursor: rows.length > q.limit ? encodeCursor(q, items.at(-1)!) : null };
  }

  async count(collection: string, where?: Record<string, Scalar>): Promise<number> {
    checkCollectionName(collection);
    const q = normalizeFind(collection, { where }, await this.spec(collection));
    return this.collection(collection, await this.generation()).countDocuments(whereFilter(q.where));
  }

  /**
   * The documents of the scope whose search words (WORDS_FIELD: the port's words, see searchWords.ts) hold every
   * term, highest order first, read through the index `{<scope>: 1, _words: 1, <order>: -1}`: equality on the
   * scope and on one term gives the index's order, so MongoDB sorts nothing in memory and stops after one page.
   * The words are the port's, so every document found is a hit: no candidates are read and dropped.
   */
  async search<T extends Doc = Doc>(collection: string, query: SearchQuery): Promise<Page<SearchHit<T>>> {
    checkCollectionName(collection);
    const ft = (await this.spec(collection))?.fullText;
    if (!ft) throw new Error(`read model collection ${collection} has no fullText index`);
    const q = normalizeSearch(collection, query);
    if (q.terms.length === 0) return { items: [], nextCursor: null };
    const filter: Document = { [ft.scope]: q.scope, [WORDS_FIELD]: { $all: q.terms }, _del: { $ne: true } };
    if (q.before !== null) filter[ft.order] = { $lt: q.before };
    const rows = await this.collection(collection, await this.generation())
      .find(filter, { projection: HIDDEN })
      .sort({ [ft.order]: -1 })
      .limit(q.limit + 1)
      .toArray();
    const items = rows.slice(0, q.limit).map((row) => hitOf(fromStored(row) as T, ft, q.terms, false));
    const last = items.at(-1);
    const nextCursor = rows.length > q.limit && last ? encodeSearchCursor(q, orderValue(collection, ft, last.doc)) : null;
    return { items, nextCursor };
  }

  async commit(projector: string, ops: WriteOp[], position: bigint, after?: bigint | null): Promise<void> {
    const pos = positionKey(position);
    const collapsed = collapseOps(ops);
    const replacements = new Map<WriteOp, Document>();
    for (const op of collapsed) {
      checkCollectionName(op.collection);
      if (!this.s.specs.has(op.collection)) {
        throw new Error(`read model collection ${op.collection} is not declared (ensureCollections first)`);
      }
      if (op.kind === 'put') {
        checkDoc(op.collection, op.doc);
        const ft = this.s.specs.get(op.collection)!.fullText;
        if (ft) orderValue(op.collection, ft, op.doc); // validates: hits are ordered and paged by it
        replacements.set(op, toStored(op.doc, pos, ft ? searchWords(op.doc, ft) : null));
      }
    }
    const generation = await this.writableGeneration();
    for (const name of new Set(collapsed.map((op) => op.collection))) {
      await this.createIndexes(this.s.specs.get(name)!, generation);
    }
    const checkpointId = `${projector}@g${generation}`;
    const groups = new Map<string, WriteOp[]>();
    for (const op of collapsed) groups.set(op.collection, [...(groups.get(op.collection) ?? []), op]);

    if (this.s.transactions) {
      await this.s.client.withSession((session) =>
        session.withTransaction(async () => {
          await this.checkNotStale(generation, session);
          const current = await this.s.checkpoints.findOne({ _id: checkpointId }, { session });
          if (current && current.position >= pos) return; // a replay: already applied
          checkAfter(projector, after, current?.position ?? null);
          for (const [name, group] of groups) {
            // The same per-document guard as without transactions (a write conflict inside a transaction would
            // abort it, so the versions are read first and older writes dropped).
            const coll = this.collection(name, generation);
            const ids = group.map(opId);
            const newer = new Set(
              (await coll.find({ _id: { $in: ids }, ...writtenSince(pos) }, { projection: { _id: 1 }, session }).toArray()).map((d) => d._id),
            );
            const writes: AnyBulkWriteOperation<StoredDoc>[] = group
              .filter((op) => !newer.has(opId(op)))
              .map((op) => ({
                replaceOne: {
                  filter: { _id: opId(op) },
                  replacement: op.kind === 'put' ? replacements.get(op)! : tombstone(pos, new Date()),
                  upsert: true,
                },
              }));
            if (writes.length > 0) await coll.bulkWrite(writes, { session, ordered: true });
          }
          await this.s.checkpoints.updateOne(
            { _id: checkpointId },
            { $set: { projector, generation, position: pos } },
            { upsert: true, session },
          );
        }),
      );
      return;
    }

    const current = await this.s.checkpoints.findOne({ _id: checkpointId });
    if (current && current.position >= pos) return; // a replay: already applied
    // Without transactions (a standalone server) this check and the writes below are not atomic: run one
    // processor per read store there, or a replica set (docs/architecture.md, Process roles).
    checkAfter(projector, after, current?.position ?? null);
    for (const [name, group] of groups) {
      // Each write applies only over an older version; when a newer one exists the upsert's insert collides
      // with it (duplicate key), which is the expected outcome of a replay.
      const writes: AnyBulkWriteOperation<StoredDoc>[] = group.map((op) => ({
        replaceOne: {
          filter: { _id: opId(op), ...writtenBefore(pos) },
          replacement: op.kind === 'put' ? replacements.get(op)! : tombstone(pos, new Date()),
          upsert: true,
        },
      }));
      try {
        await this.collection(name, generation).bulkWrite(writes, { ordered: false });
      } catch (err) {
        if (!(err instanceof MongoBulkWriteError)) throw err;
        const errors = Array.isArray(err.writeErrors) ? err.writeErrors : [err.writeErrors];
        if (errors.length === 0 || errors.some((e) => e.code !== DUPLICATE_KEY) || err.writeConcernError) throw err;
      }
    }
    try {
      await this.s.checkpoints.updateOne(
        { _id: checkpointId, position: { $lt: pos } },
        { $set: { projector, generation, position: pos } },
        { upsert: true },
      );
    } catch (err) {
      if (!isDuplicateKey(err)) throw err; // already further: checkpoints only move forward
    }
  }

  async reactorCheckpoint(reactor: string): Promise<bigint | null> {
    const doc = await this.s.db.collection<{ _id: string; position: string }>('reactor_checkpoints').findOne({ _id: reactor });
    return doc ? BigInt(doc.position) : null;
  }

  async saveReactorCheckpoint(reactor: string, position: bigint): Promise<void> {
    const key = positionKey(position);
    try {
      await this.s.db
        .collection<{ _id: string; position: string }>('reactor_checkpoints')
        .updateOne({ _id: reactor, position: { $lt: key } }, { $set: { position: key } }, { upsert: true });
    } catch (err) {
      if (!isDuplicateKey(err)) throw err; // already further: reactor checkpoints only move forward
    }
  }

  async checkpoint(projector: string): Promise<bigint | null> {
    const generation = await this.generation();
    const doc = await this.s.checkpoints.findOne({ _id: `${projector}@g${generation}` });
    return doc ? BigInt(doc.position) : null;
  }

  async startRebuild(): Promise<ReadStoreRebuild> {
    const meta = await this.s.meta.findOneAndUpdate({ _id: META_ID }, { $inc: { last: 1 } }, { returnDocument: 'after' });
    if (!meta) throw new Error('readstore_meta is missing');
    const generation = Math.max(meta.last, meta.active + 1);
    if (generation !== meta.last) await this.s.meta.updateOne({ _id: META_ID }, { $max: { last: generation } });
    const store = new MongoReadStore(this.s, generation);
    this.s.logger.info({ generation }, 'read store rebuild started');
    return {
      generation,
      store,
      switchOver: async () => {
        if (store.aborted) throw new Error(`read store generation ${generation} was aborted`);
        const res = await this.s.meta.updateOne({ _id: META_ID, active: { $lt: generation } }, { $set: { active: generation } });
        if (res.matchedCount === 0) {
          const active = await this.readActive();
          throw new Error(`cannot switch to read store generation ${generation}: generation ${active} is active`);
        }
        const dropped = await this.dropGenerations((g) => g < generation);
        this.s.logger.info({ generation, droppedCollections: dropped }, 'read store switched to the rebuilt generation');
      },
      abort: async () => {
        if (store.aborted) return;
        if ((await this.readActive()) === generation) throw new Error(`read store generation ${generation} is already active`);
        store.aborted = true;
        await this.dropGenerations((g) => g === generation);
        this.s.logger.warn({ generation }, 'read store rebuild aborted; its generation was dropped');
      },
    };
  }

  async activeGeneration(): Promise<number> {
    return this.bound ?? this.readActive();
  }

  async close(): Promise<void> {
    if (this.bound !== null) return; // views share the client of their store
    if (this.s.ownsClient) await this.s.client.close();
  }

  // --- internals -------------------------------------------------------------------------------------------

  private async readActive(session?: ClientSession): Promise<number> {
    const meta = await this.s.meta.findOne({ _id: META_ID }, session ? { session } : {});
    if (!meta) throw new Error('readstore_meta is missing');
    return meta.active;
  }

  private async generation(): Promise<number> {
    return this.bound ?? this.readActive();
  }

  private async checkNotStale(generation: number, session?: ClientSession): Promise<void> {
    const active = await this.readActive(session);
    if (generation < active) throw new StaleGenerationError(generation, active);
  }

  private async writableGeneration(): Promise<number> {
    if (this.aborted) throw new Error(`read store generation ${this.bound} was aborted`);
    const active = await this.readActive();
    if (this.bound === null) return active;
    if (this.bound < active) throw new StaleGenerationError(this.bound, active);
    return this.bound;
  }

  private collection(name: string, generation: number): Collection<StoredDoc> {
    return this.s.db.collection<StoredDoc>(`${name}_g${generation}`);
  }

  private async spec(collection: string): Promise<CollectionSpec | undefined> {
    const known = this.s.specs.get(collection);
    if (known) return known;
    const row = await this.s.registry.findOne({ name: collection }, { sort: { generation: -1 } });
    return row ? { name: collection, indexes: row.indexes, ...(row.fullText ? { fullText: row.fullText } : {}) } : undefined;
  }

  private async createIndexes(spec: CollectionSpec, generation: number): Promise<void> {
    const name = `${spec.name}_g${generation}`;
    const key = `${name}\u0000${JSON.stringify(spec.indexes)}\u0000${JSON.stringify(spec.fullText ?? null)}`;
    if (this.s.ensured.has(key)) return;
    const coll = this.s.db.collection(name);
    for (const fields of indexKeys(spec)) {
      const index = queryIndex(fields);
      await dropIndexIfPresent(coll, index.replaces);
      await coll.createIndex(index.key, { name: index.name, partialFilterExpression: index.partialFilterExpression });
    }
    await coll.createIndex({ _delAt: 1 }, { name: TOMBSTONE_TTL_INDEX, expireAfterSeconds: TOMBSTONE_TTL_SECONDS });
    await this.convertLegacyTombstones(name);
    const ft = spec.fullText;
    if (ft) await coll.createIndex(searchIndexKeys(ft), { name: SEARCH_INDEX });
    await this.s.registry.updateOne(
      { _id: name },
      { $set: { name: spec.name, generation, indexes: spec.indexes, fullText: ft ?? null } },
      { upsert: true },
    );
    if (ft) await this.fillSearchWords(name, ft);
    this.s.ensured.add(key);
  }

  /**
   * Documents written before the store kept search words (a `$text` index then) get them here, once per
   * collection: each update applies only to the version it was computed from (a newer write brings its own).
   */
  private async fillSearchWords(name: string, ft: FullTextSpec): Promise<void> {
    if ((await this.s.registry.findOne({ _id: name }))?.words) return;
    const coll = this.s.db.collection<StoredDoc>(name);
    for (;;) {
      const batch = await coll.find({ [WORDS_FIELD]: { $exists: false }, _del: { $ne: true } }).limit(500).toArray();
      if (batch.length === 0) break;
      const filled = await coll.bulkWrite(
        batch.map((stored) => ({
          updateOne: { filter: { _id: stored._id, _pos: stored._pos }, update: { $set: { [WORDS_FIELD]: searchWords(fromStored(stored), ft) } } },
        })),
        { ordered: false },
      );
      // A batch that changed nothing was rewritten meanwhile by a writer without words (an older version): stop.
      if (batch.length < 500 || filled.matchedCount === 0) break;
    }
    await dropIndexIfPresent(coll, LEGACY_TEXT_INDEX);
    await this.s.registry.updateOne({ _id: name }, { $set: { words: true } });
  }

  /** Tombstones of earlier versions (`{_pos, _del: true}`, in the query indexes, never expiring) converted once per collection. */
  private async convertLegacyTombstones(name: string): Promise<void> {
    if ((await this.s.registry.findOne({ _id: name }))?.tombstones) return;
    await this.s.db.collection(name).updateMany(LEGACY_TOMBSTONES, CONVERT_LEGACY_TOMBSTONE);
    await this.s.registry.updateOne({ _id: name }, { $set: { tombstones: true } });
  }

  /**
   * Drops the collections and checkpoints of the matching generations: those in the registry, and any
   * `<declared name>_g<n>` left behind (e.g. recreated by a write racing the switch-over).
   */
  private async dropGenerations(match: (generation: number) => boolean): Promise<string[]> {
    const registered = await this.s.registry.find({}).toArray();
    const names = new Set(registered.map((r) => r.name));
    const targets = new Set(registered.filter((r) => match(r.generation)).map((r) => r._id));
    for (const c of await this.s.db.listCollections({}, { nameOnly: true }).toArray()) {
      const m = /^(.+)_g(\d+)$/.exec(c.name);
      if (m && names.has(m[1]!) && match(Number(m[2]))) targets.add(c.name);
    }
    for (const name of targets) {
      try {
        await this.s.db.collection(name).drop();
      } catch (err) {
        if (!(err instanceof MongoServerError && err.code === NAMESPACE_NOT_FOUND)) throw err;
      }
      for (const key of [...this.s.ensured]) if (key.startsWith(`${name}\u0000`)) this.s.ensured.delete(key);
    }
    const generations = [...new Set(registered.map((r) => r.generation))].filter(match);
    await this.s.registry.deleteMany({ _id: { $in: [...targets] } });
    const checkpointGenerations = (await this.s.checkpoints.distinct('generation')).filter(match);
    await this.s.checkpoints.deleteMany({ generation: { $in: [...new Set([...generations, ...checkpointGenerations])] } });
    return [...targets];
  }
}

async function dropIndexIfPresent(coll: Pick<Collection, 'dropIndex'>, name: string): Promise<void> {
  try {
    await coll.dropIndex(name);
  } catch (err) {
    if (!(err instanceof MongoServerError && (err.code === INDEX_NOT_FOUND || err.code === NAMESPACE_NOT_FOUND))) throw err;
  }
}

function isDuplicateKey(err: unknown): boolean {
  return err instanceof MongoServerError && err.code === DUPLICATE_KEY;
}

function opId(op: WriteOp): string {
  return op.kind === 'put' ? op.doc.id : op.id;
}

function mongoField(field: string): string {
  return field === 'id' ? '_id' : field;
}

/** Plain JSON semantics on every engine (undefined fields dropped, no class instances), plus the position (and search words). */
function toStored(doc: Doc, pos: string, words: string[] | null): Document {
  const { id: _id, ...rest } = JSON.parse(JSON.stringify(doc)) as Doc;
  return words ? { ...rest, _pos: pos, [WORDS_FIELD]: words } : { ...rest, _pos: pos };
}

function fromStored(stored: Document): Doc {
  const { _id, _pos, _del, [WORDS_FIELD]: _words, ...rest } = stored;
  return { id: _id as string, ...rest };
}

/** Live documents only, in the terms of the partial indexes (tombstones.ts), so MongoDB can use them. */
function whereFilter(where: NormalizedFind['where']): Document {
  const filter: Document = { ...LIVE, _del: { $ne: true } };
  for (const [field, value] of where) filter[mongoField(field)] = value;
  return filter;
}

/** Rows strictly after `after` in the given order, null sorting lowest (as MongoDB sorts null and missing). */
function keysetFilter(sort: SortKey[], after: Scalar[]): Document {
  const branches: Document[] = [];
  for (let i = 0; i < sort.length; i++) {
    const key = sort[i]!;
    const field = mongoField(key.field);
    const value = after[i] ?? null;
    let beyond: Document;
    if (key.direction === 'asc') beyond = value === null ? { [field]: { $ne: null } } : { [field]: { $gt: value } };
    else if (value === null) continue; // nothing sorts below null
    else beyond = { $or: [{ [field]: { $lt: value } }, { [field]: null }] };
    const equal: Document[] = [];
    for (let j = 0; j < i; j++) equal.push({ [mongoField(sort[j]!.field)]: after[j] ?? null });
    branches.push({ $and: [...equal, beyond] });
  }
  return branches.length ? { $or: branches } : { _id: { $exists: false } };
}

/** See ReadStore.commit: a batch computed on a checkpoint that has moved since is refused. */
function checkAfter(projector: string, after: bigint | null | undefined, current: string | null): void {
  if (after !== undefined && current !== (after === null ? null : positionKey(after))) throw new ProjectionConflictError(projector, after, current);
}
