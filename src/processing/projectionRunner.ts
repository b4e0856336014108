import type { EventStore, RecordedEvent } from '../ports/eventStore.js';
import type { Logger } from '../ports/logger.js';
import {
  StaleGenerationError,
  ProjectionConflictError,
  checkDoc,
  type Doc,
  type FindQuery,
  type Page,
  type ReadStore,
  type WriteOp,
} from '../ports/readStore.js';
import { createEventConsumer, type AttachedProcessor, type EventConsumer, type EventProcessor } from './eventConsumer.js';
import type { Projection, ProjectionContext } from '../projections/projection.js';

/** A projection threw while applying an event: it stopped there (the event is never skipped). */
export class ProjectionFailedError extends Error {
  override readonly name = 'ProjectionFailedError';
  constructor(
    readonly projection: string,
    readonly event: Pick<RecordedEvent, 'id' | 'type' | 'stream' | 'position'>,
    cause: unknown,
  ) {
    super(
      `projection ${projection} stopped at event ${event.type} (stream ${event.stream}, position ${event.position}): ${
        cause instanceof Error ? cause.message : String(cause)
      }`,
      { cause },
    );
  }
}

/** waitForPosition gave up: some projections had not reached the position in time. */
export class ProjectionWaitTimeoutError extends Error {
  override readonly name = 'ProjectionWaitTimeoutError';
  constructor(
    readonly position: bigint,
    readonly lagging: string[],
    timeoutMs: number,
  ) {
    super(`projections ${lagging.join(', ') || '(none)'} did not reach position ${position} within ${timeoutMs} ms`);
  }
}

export class ProjectionRunnerStoppedError extends Error {
  override readonly name = 'ProjectionRunnerStoppedError';
  constructor() {
    super('the projection runner is stopped');
  }
}

export interface ProjectionStatus {
  name: string;
  state: 'starting' | 'running' | 'retrying' | 'failed' | 'stopped';
  /** Read store generation it writes to. */
  generation: number | null;
  /** Last event position processed (decimal string), null before the first. */
  position: string | null;
  error?: string;
}

export interface ProjectionRunner {
  /**
   * Resolves once every projection has processed every event up to `position` (whether or not it applies
   * them) into the active generation. Rejects with ProjectionFailedError when a projection stopped before it,
   * with ProjectionWaitTimeoutError after `timeoutMs` (default 5000). A `patient` wait (a background publisher of
   * progress, not a request reading its own write) lets a held batch wait out its window (see gatherMs).
   */
  waitForPosition(position: bigint, timeoutMs?: number, options?: { patient?: boolean }): Promise<void>;
  status(): ProjectionStatus[];
  /** Stops every subscription, saves the checkpoints, rejects pending waits. */
  stop(): Promise<void>;
}

export interface StartProjectionsOptions {
  eventStore: EventStore;
  readStore: ReadStore;
  projections: Projection[];
  logger: Logger;
  /**
   * The process's shared event consumer (reactors use it too, so each event is read once). Without one the
   * runner makes its own and stops it with itself.
   */
  consumer?: EventConsumer;
  /** Events per batch (one read store commit per batch) of the consumer made when none is given. Default 500. */
  batchSize?: number;
  /** How often to look for a generation switched by another process (rebuild CLI). Default 1000 ms. */
  generationPollMs?: number;
  /**
   * A batch without events of the projection's types commits no documents; its checkpoint is saved at the
   * latest after this many such events (and at stop), so a restart re-reads at most that many. Default 1000.
   */
  checkpointEvery?: number;
  /**
   * How long a projection holds a batch before applying it, so that the events appended meanwhile come in the next
   * read together and a document changed by several of them is written once: a read model's commit (the SQLite
   * statements of every document, its index entries, the checkpoint) costs more than applying an event, and at an
   * unsaturated rate each batch held one message's step. Cut short when someone waits for a position (read your
   * writes) and at stop; skipped for a batch already large (catching up). Only where the projections have their
   * event consumer to themselves (the projections thread): a shared consumer would hold the reactors too.
   * Default 0 (every batch applied at once).
   */
  gatherMs?: number;
}

/** A batch of at least this many events is applied at once: it already gathered what a window would. */
const GATHER_BELOW = 200;

/**
 * Runs each projection as a processor of the event consumer (events read once, shared with the reactors), one
 * unit of work and one read store commit per batch. A projection's position moves over the events it does not
 * apply too, so waitForPosition works for any event. Each projection writes to the generation that was active
 * when it started (a bound view); when another generation becomes active it restarts there from that
 * generation's checkpoint, catching up on its own if that is behind the others.
 */
export function startProjections(options: StartProjectionsOptions): ProjectionRunner {
  checkNames(options.projections);
  return new Runner(options);
}

export interface RebuildProjectionsOptions {
  eventStore: EventStore;
  readStore: ReadStore;
  projections: Projection[];
  logger: Logger;
  /** Events read and committed per step. Default 500. */
  batchSize?: number;
}

export interface RebuildResult {
  /** The generation now active. */
  generation: number;
  /** Position of the last event replayed, null for an empty event store. */
  position: bigint | null;
  /** Events read. */
  events: number;
  /** Events applied, per projection. */
  applied: Record<string, number>;
  durationMs: number;
}

/**
 * Replays every event from the beginning through every projection into a fresh generation, then makes it the
 * active one (every ReadStore instance, and every runner, follows). On failure the new generation is dropped
 * and the active one is untouched.
 */
export async function rebuildProjections(options: RebuildProjectionsOptions): Promise<RebuildResult> {
  const { eventStore, readStore, projections } = options;
  checkNames(projections);
  const batchSize = options.batchSize ?? 500;
  const started = Date.now();
  const rebuild = await readStore.startRebuild();
  const log = options.logger.child({ generation: rebuild.generation });
  log.info({ projections: projections.map((p) => p.name) }, 'projection rebuild started');
  try {
    for (const p of projections) await rebuild.store.ensureCollections(p.collections);
    const applied: Record<string, number> = Object.fromEntries(projections.map((p) => [p.name, 0]));
    const types = new Map(projections.map((p) => [p.name, new Set(p.eventTypes)]));
    let after: bigint | null = null;
    let events = 0;
    let nextProgress = 50_000;
    for (;;) {
      const batch = await eventStore.readAll({ after, maxCount: batchSize });
      if (batch.length === 0) break;
      const last = batch.at(-1)!.position;
      for (const p of projections) {
        const result = await applyBatch(p, types.get(p.name)!, rebuild.store, batch, log.child({ projection: p.name }));
        applied[p.name]! += result.applied;
        await rebuild.store.commit(p.name, result.ops, last);
      }
      events += batch.length;
      after = last;
      if (events >= nextProgress) {
        log.info({ events, position: String(last) }, 'projection rebuild progress');
        nextProgress += 50_000;
      }
    }
    await rebuild.switchOver();
    const result: RebuildResult = { generation: rebuild.generation, position: after, events, applied, durationMs: Date.now() - started };
    log.info({ events, applied, position: after === null ? null : String(after), durationMs: result.durationMs }, 'projection rebuild finished');
    return result;
  } catch (err) {
    log.error({ err }, 'projection rebuild failed; dropping the new generation, the active one is unchanged');
    try {
      await rebuild.abort();
    } catch (abortErr) {
      log.error({ err: abortErr }, 'could not drop the failed rebuild generation');
    }
    throw err;
  }
}

// --- internals ---------------------------------------------------------------------------------------------

function checkNames(projections: Projection[]): void {
  const seen = new Set<string>();
  for (const p of projections) {
    if (seen.has(p.name)) throw new Error(`two projections are named ${p.name}`);
    seen.add(p.name);
  }
}

/**
 * Pending writes over the store: `get` sees them, `find` does not. Documents are values: a projection builds a
 * new one rather than changing one it got or put (every projection does; `freezeInTests` checks it), so
 * they are handed over without a copy, which was a third of a busy projection thread's time.
 */
class UnitOfWork implements ProjectionContext {
  private readonly pending = new Map<string, Map<string, Doc | null>>();
  private readonly writable: Set<string>;

  constructor(
    private readonly store: ReadStore,
    private readonly projection: Projection,
  ) {
    this.writable = new Set(projection.collections.map((c) => c.name));
  }

  async get<T extends Doc>(collection: string, id: string): Promise<T | null> {
    const pending = this.pending.get(collection);
    if (pending?.has(id)) {
      return (pending.get(id) as T | null | undefined) ?? null;
    }
    return this.store.get<T>(collection, id);
  }

  find<T extends Doc>(collection: string, query: FindQuery): Promise<Page<T>> {
    return this.store.find<T>(collection, query);
  }

  put(collection: string, doc: Doc): void {
    this.checkWritable(collection);
    checkDoc(collection, doc);
    this.collection(collection).set(doc.id, freezeInTests(doc));
  }

  delete(collection: string, id: string): void {
    this.checkWritable(collection);
    this.collection(collection).set(id, null);
  }

  ops(): WriteOp[] {
    const ops: WriteOp[] = [];
    for (const [collection, docs] of this.pending) {
      for (const [id, doc] of docs) ops.push(doc ? { kind: 'put', collection, doc } : { kind: 'delete', collection, id });
    }
    return ops;
  }

  private collection(name: string): Map<string, Doc | null> {
    let docs = this.pending.get(name);
    if (!docs) {
      docs = new Map();
      this.pending.set(name, docs);
    }
    return docs;
  }

  private checkWritable(collection: string): void {
    if (!this.writable.has(collection)) {
      throw new Error(`projection ${this.projection.name} writes to ${collection}, which it does not declare`);
    }
  }
}

/** Under the test runner a put document is deep-frozen, so a projection that changes one after put fails its tests. */
const freezeInTests: <T>(doc: T) => T = process.env.VITEST ? deepFreeze : (doc) => doc;

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

async function applyBatch(
  projection: Projection,
  types: Set<string>,
  store: ReadStore,
  events: RecordedEvent[],
  log: Logger,
): Promise<{ ops: WriteOp[]; applied: number }> {
  const uow = new UnitOfWork(store, projection);
  let applied = 0;
  for (const event of events) {
    if (!types.has(event.type)) continue;
    try {
      await projection.apply(event, uow);
    } catch (err) {
      log.error(
        { err, eventId: event.id, eventType: event.type, stream: event.stream, position: String(event.position) },
        'projection failed to apply an event; it stops here',
      );
      throw new ProjectionFailedError(projection.name, event, err);
    }
    applied++;
  }
  return { ops: uow.ops(), applied };
}

interface Worker {
  projection: Projection;
  types: Set<string>;
  log: Logger;
  state: ProjectionStatus['state'];
  generation: number | null;
  /** The view bound to `generation` that its commits go to. */
  store: ReadStore | null;
  /** Highest position processed (applied or skipped) in `generation`. */
  lastSeen: bigint | null;
  /** Highest position whose checkpoint is saved. */
  committed: bigint | null;
  uncommittedEvents: number;
  failure: ProjectionFailedError | null;
  attached: AttachedProcessor | null;
}

interface Waiter {
  position: bigint;
  patient: boolean;
  resolve(): void;
  reject(err: unknown): void;
  timer: NodeJS.Timeout | undefined;
  checking: boolean;
}

class Runner implements ProjectionRunner {
  private stopped = false;
  private stopping: Promise<void> | null = null;
  private readonly workers: Worker[];
  private readonly waiters = new Set<Waiter>();
  private readonly timer: NodeJS.Timeout;
  private checkingGeneration = false;
  private readonly checkpointEvery: number;
  private readonly consumer: EventConsumer;
  private readonly gatherMs: number;
  /** The window the projections' batches are held for (see gatherMs); every projection of a batch shares it. */
  private gathering: { promise: Promise<void>; release(): void } | null = null;
  /** Waiters that are not patient: while there is one, batches are applied at once. */
  private urgentWaiters = 0;

  constructor(private readonly options: StartProjectionsOptions) {
    this.checkpointEvery = options.checkpointEvery ?? 1000;
    this.gatherMs = options.gatherMs ?? 0;
    this.consumer =
      options.consumer ?? createEventConsumer({ eventStore: options.eventStore, logger: options.logger, batchSize: options.batchSize ?? 500 });
    this.workers = options.projections.map((projection) => ({
      projection,
      types: new Set(projection.eventTypes),
      log: options.logger.child({ projection: projection.name }),
      state: 'starting',
      generation: null,
      store: null,
      lastSeen: null,
      committed: null,
      uncommittedEvents: 0,
      failure: null,
      attached: null,
    }));
    for (const w of this.workers) w.attached = this.consumer.attach(this.processor(w));
    this.timer = setInterval(() => void this.checkGeneration(), options.generationPollMs ?? 1000);
    this.timer.unref();
  }

  waitForPosition(position: bigint, timeoutMs = 5000, options: { patient?: boolean } = {}): Promise<void> {
    if (this.stopped) return Promise.reject(new ProjectionRunnerStoppedError());
    return new Promise<void>((resolve, reject) => {
      const patient = options.patient === true;
      const waiter: Waiter = { position, patient, resolve, reject, timer: undefined, checking: false };
      waiter.timer = setTimeout(() => {
        this.settle(waiter, new ProjectionWaitTimeoutError(position, this.lagging(position), timeoutMs));
      }, timeoutMs);
      this.waiters.add(waiter);
      if (!patient) {
        this.urgentWaiters++;
        this.gathering?.release(); // someone reads what was just written: apply the held batch now
      }
      this.evaluate(waiter);
    });
  }

  status(): ProjectionStatus[] {
    return this.workers.map((w) => ({
      name: w.projection.name,
      state: w.state,
      generation: w.generation,
      position: w.lastSeen === null ? null : String(w.lastSeen),
      ...(w.failure ? { error: w.failure.message } : {}),
    }));
  }

  stop(): Promise<void> {
    if (this.stopping) return this.stopping;
    this.stopped = true;
    clearInterval(this.timer);
    this.gathering?.release();
    this.stopping = (async () => {
      await Promise.all(this.workers.map((w) => w.attached?.detach()));
      if (!this.options.consumer) await this.consumer.stop();
      for (const w of this.workers) {
        await this.flush(w);
        w.state = 'stopped';
      }
      for (const waiter of [...this.waiters]) this.settle(waiter, new ProjectionRunnerStoppedError());
    })();
    return this.stopping;
  }

  // --- one projection ----------------------------------------------------------------------------------------

  /** The projection as the consumer sees it: it resumes on the active generation, from that one's checkpoint. */
  private processor(w: Worker): EventProcessor {
    return {
      name: w.projection.name,
      filter: { eventTypes: w.projection.eventTypes },
      resumeAfter: async () => {
        const { readStore } = this.options;
        const generation = await readStore.activeGeneration();
        const store = readStore.atGeneration(generation);
        await store.ensureCollections(w.projection.collections);
        const checkpoint = await store.checkpoint(w.projection.name);
        if (w.generation !== null && w.generation !== generation) {
          w.log.info({ generation }, 'another read store generation became active; projection restarts there');
        }
        Object.assign(w, { generation, store, lastSeen: checkpoint, committed: checkpoint, uncommittedEvents: 0, state: 'running', failure: null });
        // One per projection on every start: detail for LOG_LEVEL=debug, not for the start-up output.
        w.log.debug({ generation, checkpoint: checkpoint === null ? null : String(checkpoint) }, 'projection started');
        this.notify();
        return checkpoint;
      },
      handle: (events, through, scanned) => this.handle(w, events, through, scanned),
      retryDelay: (err, attempt) => {
        if (err instanceof ProjectionFailedError) {
          // Never skipped: it stays before this event until a rebuilt generation gets past it.
          w.state = 'failed';
          w.failure = err;
          this.notify();
          return null;
        }
        if (err instanceof StaleGenerationError) {
          w.state = 'starting';
          w.log.info({ generation: err.generation, active: err.active }, 'read store generation switched; projection restarts there');
          return 0;
        }
        if (err instanceof ProjectionConflictError) {
          // Another processor sharing this read store projected the same events first: start again from the
          // checkpoint it saved, reading the documents as it left them.
          w.state = 'starting';
          w.log.debug({ err }, 'projection advanced by another processor; it resumes from the stored checkpoint');
          return 0;
        }
        const delay = Math.min(500 * 2 ** (attempt - 1), 30_000);
        w.state = 'retrying';
        w.log.error({ err, retryInMs: delay }, 'projection interrupted by an error; it resumes from its checkpoint');
        this.notify();
        return delay;
      },
    };
  }

  private async handle(w: Worker, events: RecordedEvent[], through: bigint, scanned: number): Promise<void> {
    if (scanned < GATHER_BELOW && events.some((e) => w.types.has(e.type))) await this.gather();
    const store = w.store!;
    const { ops, applied } = await applyBatch(w.projection, w.types, store, events, w.log);
    w.uncommittedEvents += scanned;
    if (applied > 0 || ops.length > 0 || w.uncommittedEvents >= this.checkpointEvery) {
      // Computed on the documents as of w.committed: refused if another processor has moved the checkpoint since.
      await store.commit(w.projection.name, ops, through, w.committed);
      w.committed = through;
      w.uncommittedEvents = 0;
    }
    w.lastSeen = through;
    this.notify();
  }

  /**
   * Resolves when the current window ends (gatherMs after its first batch), at once with no window, while someone
   * waits for a position or once stopping. The consumer reads the next batch only after this one is handled, so
   * what is appended meanwhile waits in the store and arrives as one batch.
   */
  private gather(): Promise<void> {
    if (this.gatherMs <= 0 || this.stopped || this.urgentWaiters > 0) return Promise.resolve();
    if (!this.gathering) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      const window = {
        promise,
        release: () => {
          clearTimeout(timer);
          if (this.gathering === window) this.gathering = null;
          resolve();
        },
      };
      const timer = setTimeout(window.release, this.gatherMs);
      this.gathering = window;
    }
    return this.gathering.promise;
  }

  /** Saves the checkpoint of skipped events at stop, so a restart does not read them again. */
  private async flush(w: Worker): Promise<void> {
    if (!w.store || w.lastSeen === null || (w.committed !== null && w.lastSeen <= w.committed)) return;
    try {
      await w.store.commit(w.projection.name, [], w.lastSeen, w.committed);
      w.committed = w.lastSeen;
    } catch (err) {
      if (!(err instanceof StaleGenerationError) && !(err instanceof ProjectionConflictError)) {
        w.log.warn({ err }, 'could not save the checkpoint at stop; the skipped events will be read again');
      }
    }
  }

  /** Restarts projections that are not on the active generation (switched by a rebuild, maybe elsewhere). */
  private async checkGeneration(): Promise<void> {
    if (this.checkingGeneration || this.stopped) return;
    this.checkingGeneration = true;
    try {
      this.followGeneration(await this.options.readStore.activeGeneration());
    } catch (err) {
      this.options.logger.warn({ err }, 'could not read the active read store generation');
    } finally {
      this.checkingGeneration = false;
    }
  }

  private followGeneration(active: number): void {
    if (this.stopped) return;
    for (const w of this.workers) {
      if (w.generation === null || w.generation === active || w.state === 'starting') continue;
      if (w.state === 'failed') {
        // The rebuilt generation got past the event this projection failed on: try again from there.
        w.log.info({ generation: active }, 'a new read store generation is active; restarting the failed projection there');
      }
      w.state = 'starting';
      w.attached?.restart();
    }
  }

  // --- waiting for positions ------------------------------------------------------------------------------

  private notify(): void {
    for (const waiter of [...this.waiters]) this.evaluate(waiter);
  }

  private evaluate(waiter: Waiter): void {
    const reached = (w: Worker) => w.lastSeen !== null && w.lastSeen >= waiter.position;
    const failedBefore = () => this.workers.find((w) => w.state === 'failed' && !reached(w));
    if ((!failedBefore() && !this.workers.every(reached)) || waiter.checking) return;
    // Settled against the active generation: a rebuild may have switched, and its generation may lack the last
    // events (or be past the event a projection failed on) until the projections restart there.
    waiter.checking = true;
    this.options.readStore.activeGeneration().then(
      (active) => {
        waiter.checking = false;
        if (!this.waiters.has(waiter)) return;
        const failed = failedBefore();
        if (failed && failed.generation === active) {
          return this.settle(waiter, failed.failure ?? new Error(`projection ${failed.projection.name} failed`));
        }
        if (!failed && this.workers.every((w) => reached(w) && w.generation === active)) return this.settle(waiter, null);
        this.followGeneration(active); // the restarted projections notify again
      },
      (err: unknown) => {
        waiter.checking = false;
        this.options.logger.warn({ err }, 'could not read the active read store generation');
      },
    );
  }

  private settle(waiter: Waiter, error: unknown): void {
    if (!this.waiters.delete(waiter)) return;
    if (!waiter.patient) this.urgentWaiters--;
    clearTimeout(waiter.timer);
    if (error === null) waiter.resolve();
    else waiter.reject(error);
  }

  private lagging(position: bigint): string[] {
    return this.workers.filter((w) => w.lastSeen === null || w.lastSeen < position).map((w) => w.projection.name);
  }
}
