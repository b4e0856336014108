import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { EventCatalog } from '../../../src/domain/catalog.js';
import { MemoryEventStore } from '../../../src/infrastructure/memory/memoryEventStore.js';
import { SqliteReadStore } from '../../../src/infrastructure/sqlite/sqliteReadStore.js';
import { validatingEventStore } from '../../../src/infrastructure/validatingEventStore.js';
import type { EventStore, RecordedEvent } from '../../../src/ports/eventStore.js';
import type { Logger } from '../../../src/ports/logger.js';
import type { ReadStore } from '../../../src/ports/readStore.js';
import { createEventConsumer, type EventConsumer, type EventProcessor } from '../../../src/processing/eventConsumer.js';
import type { Projection } from '../../../src/projections/projection.js';
import { startProjections, type ProjectionRunner } from '../../../src/processing/projectionRunner.js';
import { startReactor } from '../../../src/processing/reactor.js';
import { eventually } from '../../support/eventually.js';

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => silent };

/** A tiny catalog whose schemas count how often an event is decoded (validated on read). */
function countingStore() {
  const schemas: Record<string, z.ZodType> = {
    Counted: z.object({ key: z.string(), n: z.number() }),
    Renamed: z.object({ key: z.string(), label: z.string() }),
    Noise: z.object({}),
  };
  const counts = { readAll: 0, readStream: 0, decoded: 0 };
  const catalog = Object.fromEntries(
    Object.entries(schemas).map(([type, schema]) => [
      type,
      {
        safeParse: (data: unknown) => {
          counts.decoded++;
          return schema.safeParse(data);
        },
      },
    ]),
  ) as unknown as EventCatalog;
  const memory = new MemoryEventStore();
  const readAll = memory.readAll.bind(memory);
  const readStream = memory.readStream.bind(memory);
  // The subscriptions read through the adapter itself, so the count is taken there.
  memory.readAll = (options) => {
    counts.readAll++;
    return readAll(options);
  };
  memory.readStream = (stream, options) => {
    counts.readStream++;
    return readStream(stream, options);
  };
  const store = validatingEventStore(memory, catalog);
  return { store, counts };
}

let store: EventStore;
let counts: { readAll: number; readStream: number; decoded: number };
let readStore: ReadStore;
const cleanups: (() => Promise<void>)[] = [];

beforeEach(() => {
  ({ store, counts } = countingStore());
  readStore = SqliteReadStore.open({ path: ':memory:' });
});

afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  await readStore.close();
});

function consumer(options: { batchSize?: number; maxHoldMs?: number } = {}): EventConsumer {
  const c = createEventConsumer({ eventStore: store, logger: silent, ...options });
  cleanups.push(() => c.stop());
  return c;
}

const append = async (type: string, data: Record<string, unknown>, stream = 'thing-1') =>
  (await store.append(stream, [{ id: randomUUID(), type, data }], 'any')).position;

/** A processor that records what it was handed; `gate` lets a test hold its handle() calls. */
function recorder(name: string, options: { types?: string[]; after?: bigint | null; fail?: (e: RecordedEvent) => boolean; gate?: () => Promise<void> } = {}) {
  const seen: bigint[] = [];
  let position: bigint | null = options.after ?? null;
  let failures = 0;
  const processor: EventProcessor = {
    name,
    ...(options.types ? { filter: { eventTypes: options.types } } : {}),
    resumeAfter: async () => position,
    handle: async (events, through) => {
      await options.gate?.();
      for (const e of events) {
        if (options.fail?.(e)) {
          failures++;
          throw new Error(`cannot handle ${e.position}`);
        }
      }
      seen.push(...events.map((e) => e.position));
      position = through;
    },
    retryDelay: () => 10,
  };
  return { processor, seen, get position() { return position; }, get failures() { return failures; } };
}

describe('event consumer', () => {
  it('hands each event once to every processor that wants it, each at its own position', async () => {
    const c = consumer();
    const all = recorder('all');
    const counted = recorder('counted', { types: ['Counted'] });
    c.attach(all.processor);
    c.attach(counted.processor);
    const p0 = await append('Counted', { key: 'a', n: 1 });
    const p1 = await append('Renamed', { key: 'a', label: 'x' });
    const p2 = await append('Counted', { key: 'a', n: 2 });
    await eventually(() => expect([all.position, counted.position]).toEqual([p2, p2]));
    expect(all.seen).toEqual([p0, p1, p2]);
    expect(counted.seen).toEqual([p0, p2]);
  });

  it('lets a processor far behind catch up on its own while the others stay live', async () => {
    for (let i = 0; i < 50; i++) await append('Counted', { key: 'k', n: i });
    const c = consumer({ batchSize: 5 });
    const live = recorder('live', { after: 49n });
    c.attach(live.processor);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const laggard = recorder('laggard', { after: null, gate: () => held });
    c.attach(laggard.processor);
    const next = await append('Noise', {});
    // The laggard is stuck on its first batch; the live one still gets the new event at once.
    await eventually(() => expect(live.seen).toEqual([next]));
    expect(laggard.seen).toEqual([]);
    release();
    await eventually(() => expect(laggard.position).toBe(next));
    expect(laggard.seen).toEqual(Array.from({ length: 51 }, (_, i) => BigInt(i)));
  });

  it('retries a failing processor from its position without skipping events or holding up the others', async () => {
    const c = consumer();
    let broken = true;
    const flaky = recorder('flaky', { fail: (e) => broken && e.type === 'Renamed' });
    const steady = recorder('steady');
    c.attach(flaky.processor);
    c.attach(steady.processor);
    const p0 = await append('Counted', { key: 'a', n: 1 });
    await eventually(() => expect(flaky.position).toBe(p0));
    const p1 = await append('Renamed', { key: 'a', label: 'x' });
    const p2 = await append('Counted', { key: 'a', n: 2 });
    await eventually(() => expect(steady.position).toBe(p2));
    await eventually(() => expect(flaky.failures).toBeGreaterThan(1));
    expect(flaky.position).toBe(p0);
    broken = false;
    await eventually(() => expect(flaky.position).toBe(p2));
    expect(flaky.seen).toEqual([p0, p1, p2]);
  });

  it('stops holding the shared read for a processor slower than maxHoldMs', async () => {
    const c = consumer({ maxHoldMs: 50 });
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let hold = false;
    const slow = recorder('slow', { gate: () => (hold ? held : Promise.resolve()) });
    const fast = recorder('fast');
    c.attach(slow.processor);
    c.attach(fast.processor);
    const p0 = await append('Noise', {});
    await eventually(() => expect([slow.position, fast.position]).toEqual([p0, p0]));
    hold = true;
    const p1 = await append('Noise', {});
    const p2 = await append('Noise', {});
    await eventually(() => expect(fast.position).toBe(p2));
    expect(slow.position).toBe(p0);
    hold = false;
    release();
    await eventually(() => expect(slow.position).toBe(p2));
    expect(slow.seen).toEqual([p0, p1, p2]);
  });
});

describe('reactor on the shared consumer', () => {
  it('retries a failing reaction without skipping it, while the projections sharing the consumer go on', async () => {
    const shared = consumer();
    const counter: Projection = {
      name: 'counter',
      collections: [{ name: 'counter', indexes: [] }],
      eventTypes: ['Counted'],
      async apply(event, ctx) {
        ctx.put('counter', { id: 'c', last: String(event.position) });
      },
    };
    const runner = startProjections({ eventStore: store, readStore, projections: [counter], logger: silent, consumer: shared, generationPollMs: 60_000 });
    cleanups.push(() => runner.stop());
    const reacted: bigint[] = [];
    let failuresLeft = 3;
    const reactor = await startReactor({
      name: 'flaky',
      eventStore: store,
      readStore,
      eventTypes: ['Counted'],
      logger: silent,
      consumer: shared,
      react: async (e) => {
        if (e.position === 1n && failuresLeft-- > 0) throw new Error('bus unavailable');
        reacted.push(e.position);
      },
    });
    cleanups.push(() => reactor.stop());
    const p0 = await append('Counted', { key: 'a', n: 1 });
    const p1 = await append('Counted', { key: 'a', n: 2 });
    const p2 = await append('Counted', { key: 'a', n: 3 });
    await runner.waitForPosition(p2, 1000);
    expect(await readStore.get('counter', 'c')).toMatchObject({ last: String(p2) });
    await eventually(() => expect(reacted).toEqual([p0, p1, p2]));
    expect(failuresLeft).toBe(-1);
    await eventually(async () => expect(await readStore.reactorCheckpoint('flaky')).toBe(p2));
  });
});

describe('cost per event', () => {
  /** Ten projections and three reactors over the same log, like the server runs them. */
  function workload() {
    const projections: Projection[] = Array.from({ length: 10 }, (_, i) => ({
      name: `p${i}`,
      collections: [{ name: `c${i}`, indexes: [] }],
      eventTypes: i % 2 === 0 ? ['Counted'] : ['Counted', 'Renamed'],
      async apply(event, ctx) {
        const data = event.data as { key: string };
        ctx.put(`c${i}`, { id: data.key, last: String(event.position) });
      },
    }));
    const reactions: string[] = [];
    const reactors = [['Counted'], ['Renamed'], ['Counted', 'Renamed']].map((eventTypes, i) => ({
      name: `r${i}`,
      eventTypes,
      react: async (e: RecordedEvent) => void reactions.push(`${i}:${e.position}`),
    }));
    return { projections, reactors, reactions };
  }

  it('reads and decodes each event about once for all projections and reactors together', async () => {
    const N = 300;
    const { projections, reactors, reactions } = workload();
    const shared = consumer();
    const runner: ProjectionRunner = startProjections({ eventStore: store, readStore, projections, logger: silent, consumer: shared, generationPollMs: 60_000 });
    cleanups.push(() => runner.stop());
    for (const r of reactors) {
      const started = await startReactor({ ...r, eventStore: store, readStore, logger: silent, consumer: shared });
      cleanups.push(() => started.stop());
    }
    let last = 0n;
    for (let i = 0; i < N; i++) {
      last = await append(i % 3 === 2 ? 'Noise' : i % 3 === 1 ? 'Renamed' : 'Counted', i % 3 === 2 ? {} : i % 3 === 1 ? { key: `k${i % 7}`, label: 'l' } : { key: `k${i % 7}`, n: i });
      if (i % 10 === 9) await runner.waitForPosition(last);
    }
    await runner.waitForPosition(last);
    await eventually(() => expect(reactions.length).toBe(N / 3 + N / 3 + (2 * N) / 3));
    const decodedOnRead = counts.decoded - N; // every append validates its event once too
    console.log(`cost per event: ${N} events, ${counts.readAll} readAll calls, ${decodedOnRead} events decoded on read (${(decodedOnRead / N).toFixed(2)} per event)`);
    // One subscription per projection and reactor decoded each event 11.3 times here (every projection read
    // every event; each reactor its own types), with 3,724 readAll calls (measured on the previous runner).
    expect(decodedOnRead).toBeLessThanOrEqual(N * 1.1);
    expect(counts.readStream).toBe(0);
  });
});
