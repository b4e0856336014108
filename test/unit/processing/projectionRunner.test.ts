import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryEventStore } from '../../../src/infrastructure/memory/memoryEventStore.js';
import { SqliteReadStore } from '../../../src/infrastructure/sqlite/sqliteReadStore.js';
import type { RecordedEvent } from '../../../src/ports/eventStore.js';
import type { Logger } from '../../../src/ports/logger.js';
import type { Doc, ReadStore } from '../../../src/ports/readStore.js';
import type { Projection } from '../../../src/projections/projection.js';
import {
  ProjectionFailedError,
  ProjectionWaitTimeoutError,
  rebuildProjections,
  startProjections,
  type ProjectionRunner,
} from '../../../src/processing/projectionRunner.js';
import { eventually } from '../../support/eventually.js';
import { allDocs } from '../../support/projectionSpec.js';

// --- a tiny event catalog and two projections ---------------------------------------------------------------

type Counter = Doc & { total: number; events: number; lastPosition: string };
type Label = Doc & { label: string; stream: string; renames: number };

/** Fresh projections with a count of apply calls; `failOn` makes `counters` throw on that event type. */
function makeProjections(options: { failOn?: string } = {}) {
  const calls = { counters: 0, labels: 0 };
  const counters: Projection = {
    name: 'counters',
    collections: [{ name: 'counters', indexes: ['total'] }],
    eventTypes: ['Counted', 'Removed', ...(options.failOn ? [options.failOn] : [])],
    async apply(event: RecordedEvent, ctx) {
      calls.counters++;
      if (event.type === options.failOn) throw new Error('cannot apply this');
      const data = event.data as { key: string; n?: number };
      if (event.type === 'Removed') return ctx.delete('counters', data.key);
      const doc = (await ctx.get<Counter>('counters', data.key)) ?? { id: data.key, total: 0, events: 0, lastPosition: '' };
      ctx.put('counters', { ...doc, total: doc.total + (data.n ?? 0), events: doc.events + 1, lastPosition: String(event.position) });
    },
  };
  const labels: Projection = {
    name: 'labels',
    collections: [{ name: 'labels', indexes: ['label'] }],
    eventTypes: ['Renamed'],
    async apply(event, ctx) {
      calls.labels++;
      const data = event.data as { key: string; label: string };
      const previous = await ctx.get<Label>('labels', data.key);
      ctx.put('labels', { id: data.key, label: data.label, stream: event.stream, renames: (previous?.renames ?? 0) + 1 });
    },
  };
  return { projections: [counters, labels], calls };
}

interface LogLine {
  level: string;
  obj: Record<string, unknown>;
  msg: string | undefined;
}

function recordingLogger(): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const make = (bindings: Record<string, unknown>): Logger => {
    const at = (level: string) => (obj: object | string, msg?: string) => {
      lines.push(typeof obj === 'string' ? { level, obj: { ...bindings }, msg: obj } : { level, obj: { ...bindings, ...obj }, msg });
    };
    return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), child: (b) => make({ ...bindings, ...b }) };
  };
  return { logger: make({}), lines };
}

// --- fixture --------------------------------------------------------------------------------------------------

let dir: string;
let path: string;
let events: MemoryEventStore;
let readStore: SqliteReadStore;
const opened: ReadStore[] = [];
const runners: ProjectionRunner[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'projections-'));
  path = join(dir, 'readmodels.sqlite');
  events = new MemoryEventStore();
  readStore = openStore();
});

afterEach(async () => {
  for (const r of runners.splice(0)) await r.stop();
  for (const s of opened.splice(0)) await s.close();
  rmSync(dir, { recursive: true, force: true });
});

function openStore(): SqliteReadStore {
  const store = SqliteReadStore.open({ path });
  opened.push(store);
  return store;
}

function start(projections: Projection[], logger: Logger, extra: { batchSize?: number; store?: ReadStore; gatherMs?: number } = {}): ProjectionRunner {
  const runner = startProjections({
    eventStore: events,
    readStore: extra.store ?? readStore,
    projections,
    logger,
    batchSize: extra.batchSize,
    gatherMs: extra.gatherMs,
    generationPollMs: 50,
  });
  runners.push(runner);
  return runner;
}

async function append(stream: string, type: string, data: Record<string, unknown> = {}): Promise<bigint> {
  const result = await events.append(stream, [{ id: randomUUID(), type, data }], 'any');
  return result.position;
}

// --- tests ----------------------------------------------------------------------------------------------------

describe('projection runner', () => {
  it('projects live events; waitForPosition resolves once every projection has them', async () => {
    const { projections } = makeProjections();
    const runner = start(projections, recordingLogger().logger);
    await append('thing-a', 'Counted', { key: 'a', n: 2 });
    await append('thing-b', 'Counted', { key: 'b', n: 5 });
    await append('thing-a', 'Renamed', { key: 'a', label: 'Alpha' });
    const last = await append('thing-a', 'Counted', { key: 'a', n: 3 });
    await runner.waitForPosition(last);

    expect(await readStore.get('counters', 'a')).toEqual({ id: 'a', total: 5, events: 2, lastPosition: String(last) });
    expect(await readStore.get('counters', 'b')).toMatchObject({ total: 5, events: 1 });
    expect(await readStore.get('labels', 'a')).toEqual({ id: 'a', label: 'Alpha', stream: 'thing-a', renames: 1 });
    expect((await readStore.find('counters', { orderBy: [{ field: 'total', direction: 'desc' }] })).items.map((d) => d.id)).toEqual(['b', 'a']);

    await append('thing-a', 'Removed', { key: 'a' });
    const after = await append('thing-c', 'Counted', { key: 'c', n: 1 });
    await runner.waitForPosition(after);
    expect(await readStore.get('counters', 'a')).toBeNull();
    expect(await readStore.count('counters')).toBe(2);
  });

  it('waitForPosition also resolves for events no projection applies', async () => {
    const { projections, calls } = makeProjections();
    const runner = start(projections, recordingLogger().logger);
    const noise = await append('other-1', 'Noise');
    await runner.waitForPosition(noise, 2000);
    expect(calls).toEqual({ counters: 0, labels: 0 });
    expect(runner.status().map((s) => [s.name, s.state, s.position])).toEqual([
      ['counters', 'running', String(noise)],
      ['labels', 'running', String(noise)],
    ]);
  });

  it('applies every event of a batch through one unit of work (get sees the pending writes)', async () => {
    for (let i = 0; i < 40; i++) await append('thing-x', 'Counted', { key: 'x', n: 1 });
    const { projections } = makeProjections();
    const runner = start(projections, recordingLogger().logger, { batchSize: 500 });
    await runner.waitForPosition(39n);
    expect(await readStore.get('counters', 'x')).toMatchObject({ total: 40, events: 40 });
  });

  it('resumes from its checkpoint after a restart without applying anything twice', async () => {
    const first = makeProjections();
    const runner = start(first.projections, recordingLogger().logger, { batchSize: 3 });
    for (let i = 0; i < 5; i++) await append(`thing-${i % 2}`, 'Counted', { key: `k${i % 2}`, n: 10 });
    await append('thing-0', 'Renamed', { key: 'k0', label: 'zero' });
    const lastOfFirst = await append('other', 'Noise');
    await runner.waitForPosition(lastOfFirst);
    await runner.stop();
    // The trailing event no projection applies is checkpointed at stop, so nothing is read twice.
    expect(await readStore.checkpoint('counters')).toBe(lastOfFirst);
    expect(await readStore.checkpoint('labels')).toBe(lastOfFirst);
    await expect(runner.waitForPosition(0n)).rejects.toThrow(/stopped/);

    await append('thing-0', 'Counted', { key: 'k0', n: 1 });
    const last = await append('thing-1', 'Renamed', { key: 'k1', label: 'one' });
    const second = makeProjections();
    const again = start(second.projections, recordingLogger().logger, { store: openStore() });
    await again.waitForPosition(last);
    expect(second.calls).toEqual({ counters: 1, labels: 1 });
    expect(await readStore.get('counters', 'k0')).toMatchObject({ total: 31, events: 4 });
    expect(await readStore.get('counters', 'k1')).toMatchObject({ total: 20, events: 2 });
    expect(await readStore.get('labels', 'k1')).toMatchObject({ label: 'one' });
  });

  it('stops a projection at an event it cannot apply, logs where, and rejects waits instead of hanging', async () => {
    const { projections } = makeProjections({ failOn: 'Boom' });
    const { logger, lines } = recordingLogger();
    const runner = start(projections, logger, { batchSize: 2 });
    const p1 = await append('thing-a', 'Counted', { key: 'a', n: 1 });
    await runner.waitForPosition(p1);
    const boom = await append('thing-bad', 'Boom');
    await append('thing-a', 'Counted', { key: 'a', n: 1 });
    const last = await append('thing-a', 'Renamed', { key: 'a', label: 'still projected' });

    const err = await runner.waitForPosition(last).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProjectionFailedError);
    expect((err as ProjectionFailedError).projection).toBe('counters');
    expect((err as ProjectionFailedError).event).toMatchObject({ stream: 'thing-bad', position: boom, type: 'Boom' });
    expect((err as Error).message).toContain('thing-bad');

    const line = lines.find((l) => l.level === 'error' && l.obj.projection === 'counters');
    expect(line?.obj).toMatchObject({ stream: 'thing-bad', position: String(boom), eventType: 'Boom' });
    expect(line?.obj.err).toBeInstanceOf(Error);

    // Not skipped: the projection stays before the event (its whole batch is dropped); the other goes on.
    expect(await readStore.checkpoint('counters')).toBe(p1);
    expect(await readStore.get('counters', 'a')).toMatchObject({ total: 1, lastPosition: String(p1) });
    await eventually(async () => expect(await readStore.get('labels', 'a')).toMatchObject({ label: 'still projected' }));
    expect(runner.status().find((s) => s.name === 'counters')).toMatchObject({ state: 'failed', error: expect.stringContaining('Boom') });
    // Positions before the failure can still be waited for.
    await runner.waitForPosition(p1);
  });

  it('rejects a wait that is not reached within the timeout', async () => {
    const { projections } = makeProjections();
    const runner = start(projections, recordingLogger().logger);
    const head = await append('thing-a', 'Counted', { key: 'a', n: 1 });
    await runner.waitForPosition(head);
    const started = Date.now();
    const err = await runner.waitForPosition(head + 100n, 200).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProjectionWaitTimeoutError);
    expect((err as ProjectionWaitTimeoutError).lagging).toEqual(['counters', 'labels']);
    expect(Date.now() - started).toBeLessThan(2000);
  });
});

/** The store as the runner sees it, with the documents each commit writes, per projection. */
function countingCommits(inner: ReadStore): { store: ReadStore; commits: Map<string, number[]> } {
  const commits = new Map<string, number[]>();
  const wrap = (view: ReadStore): ReadStore =>
    new Proxy(view, {
      get(target, key) {
        if (key === 'commit') {
          return (projector: string, ops: Parameters<ReadStore['commit']>[1], ...rest: [bigint, (bigint | null)?]) => {
            if (ops.length > 0) commits.set(projector, [...(commits.get(projector) ?? []), ops.length]);
            return target.commit(projector, ops, ...rest);
          };
        }
        if (key === 'atGeneration') return (generation: number) => wrap(target.atGeneration(generation));
        const value = Reflect.get(target, key, target) as unknown;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
  return { store: wrap(inner), commits };
}

describe('projection runner with a gathering window (gatherMs)', () => {
  it('applies what was appended during the window as one batch: a document changed by each event is written once', async () => {
    const { projections } = makeProjections();
    const { store, commits } = countingCommits(readStore);
    const runner = start(projections, recordingLogger().logger, { store, gatherMs: 400 });
    let last = 0n;
    for (let i = 0; i < 20; i++) {
      last = await append('thing-x', 'Counted', { key: 'x', n: 1 });
      await new Promise((r) => setImmediate(r)); // each append seen on its own, as steps of a message are
    }
    await runner.waitForPosition(last, 5000, { patient: true });
    expect(await readStore.get('counters', 'x')).toMatchObject({ total: 20, events: 20 });
    // Without the window each append would be a batch of its own (up to 20 commits of the document).
    expect(commits.get('counters')!.length).toBeLessThanOrEqual(3);
  });

  it('a wait for a position (read your writes) cuts the window short; a patient one lets it run', async () => {
    const { projections } = makeProjections();
    const runner = start(projections, recordingLogger().logger, { gatherMs: 60_000 });
    const first = await append('thing-a', 'Counted', { key: 'a', n: 1 });
    // Held for a minute: a patient wait (progress publishing) does not release it.
    const patient = await runner.waitForPosition(first, 300, { patient: true }).catch((e: unknown) => e);
    expect(patient).toBeInstanceOf(ProjectionWaitTimeoutError);
    expect(await readStore.get('counters', 'a')).toBeNull();
    // A request reading its own write: applied now, and so is what follows while it waits.
    await runner.waitForPosition(first, 5000);
    expect(await readStore.get('counters', 'a')).toMatchObject({ total: 1 });
  });

  it('stops without waiting out the window, keeping what it held for the next start', async () => {
    const { projections } = makeProjections();
    const runner = start(projections, recordingLogger().logger, { gatherMs: 60_000 });
    const position = await append('thing-a', 'Counted', { key: 'a', n: 4 });
    await eventually(() => expect(runner.status()[0]!.state).toBe('running'));
    const started = Date.now();
    await runner.stop();
    expect(Date.now() - started).toBeLessThan(10_000);
    const again = start(makeProjections().projections, recordingLogger().logger);
    await again.waitForPosition(position);
    expect(await readStore.get('counters', 'a')).toMatchObject({ total: 4, events: 1 });
  });
});

describe('rebuildProjections', () => {
  /** A deterministic mix: counters added to and removed, labels renamed, noise. */
  async function appendMix(count: number, seed: number): Promise<bigint> {
    let last = -1n;
    for (let i = 0; i < count; i++) {
      const r = (i * 7919 + seed * 104_729) % 100;
      const key = `k${(i * 31 + seed) % 17}`;
      if (r < 55) last = await append(`thing-${key}`, 'Counted', { key, n: (i % 9) + 1 });
      else if (r < 75) last = await append(`thing-${key}`, 'Renamed', { key, label: `label-${i}` });
      else if (r < 82) last = await append(`thing-${key}`, 'Removed', { key });
      else last = await append(`other-${i % 3}`, 'Noise', { i });
    }
    return last;
  }

  async function snapshot(store: ReadStore) {
    return { counters: await allDocs(store, 'counters'), labels: await allDocs(store, 'labels') };
  }

  it('reproduces the live read model in a new generation, and the live runner follows the switch', async () => {
    const live = makeProjections();
    const runner = start(live.projections, recordingLogger().logger, { batchSize: 7 });
    // Appended in bursts so the live batches fall differently from the rebuild's.
    let last = -1n;
    for (let burst = 0; burst < 6; burst++) {
      last = await appendMix(50, burst);
      if (burst % 2 === 0) await runner.waitForPosition(last);
    }
    await runner.waitForPosition(last);
    const before = await snapshot(readStore);
    expect(before.counters.length).toBeGreaterThan(3);
    expect(before.labels.length).toBeGreaterThan(3);

    // The rebuild runs on another instance, as the CLI in another process would.
    const cli = openStore();
    const result = await rebuildProjections({
      eventStore: events,
      readStore: cli,
      projections: makeProjections().projections,
      logger: recordingLogger().logger,
      batchSize: 50,
    });
    expect(result).toMatchObject({ generation: 2, events: 300, position: last });
    expect(result.applied.counters).toBe(live.calls.counters);
    expect(result.applied.labels).toBe(live.calls.labels);
    expect(await readStore.activeGeneration()).toBe(2);
    expect(await snapshot(readStore)).toEqual(before);
    expect(await snapshot(cli)).toEqual(before);

    // The live runner moves to generation 2 and keeps projecting there.
    const next = await append('thing-k1', 'Counted', { key: 'k1', n: 1000 });
    await runner.waitForPosition(next);
    const k1 = before.counters.find((d) => d.id === 'k1') as Counter | undefined;
    expect(await readStore.get('counters', 'k1')).toMatchObject({ total: (k1?.total ?? 0) + 1000, lastPosition: String(next) });
    expect(runner.status().every((s) => s.generation === 2 && s.state === 'running')).toBe(true);
  });

  it('leaves the active generation untouched when a projection fails during the rebuild', async () => {
    const live = makeProjections();
    const runner = start(live.projections, recordingLogger().logger);
    await append('thing-a', 'Counted', { key: 'a', n: 1 });
    const boom = await append('thing-bad', 'Boom');
    await runner.waitForPosition(boom);
    const before = await snapshot(readStore);

    const { logger, lines } = recordingLogger();
    const failing = makeProjections({ failOn: 'Boom' });
    const err = await rebuildProjections({ eventStore: events, readStore, projections: failing.projections, logger }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProjectionFailedError);
    expect(lines.some((l) => l.level === 'error' && l.obj.stream === 'thing-bad' && l.obj.position === String(boom))).toBe(true);
    expect(await readStore.activeGeneration()).toBe(1);
    expect(await snapshot(readStore)).toEqual(before);
    const next = await append('thing-a', 'Counted', { key: 'a', n: 1 });
    await runner.waitForPosition(next);
    expect(runner.status().every((s) => s.generation === 1)).toBe(true);
  });

  it('restarts a failed live projection on the rebuilt generation, past the event it failed on', async () => {
    const broken = makeProjections({ failOn: 'Boom' });
    const runner = start(broken.projections, recordingLogger().logger);
    await append('thing-a', 'Counted', { key: 'a', n: 1 });
    const boom = await append('thing-bad', 'Boom');
    await expect(runner.waitForPosition(boom)).rejects.toBeInstanceOf(ProjectionFailedError);

    // A fixed version of the projection (Boom is no longer its concern) rebuilds the read model.
    await rebuildProjections({ eventStore: events, readStore: openStore(), projections: makeProjections().projections, logger: recordingLogger().logger });
    const next = await append('thing-a', 'Counted', { key: 'a', n: 1 });
    await runner.waitForPosition(next);
    expect(await readStore.get('counters', 'a')).toMatchObject({ total: 2, events: 2 });
    expect(runner.status().find((s) => s.name === 'counters')).toMatchObject({ state: 'running', generation: 2 });
  });
});
