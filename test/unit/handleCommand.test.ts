import { describe, expect, it } from 'vitest';
import { handleCommand, loadState } from '../../src/commands/handleCommand.js';
import type { Decider } from '../../src/domain/decider.js';
import { DomainError } from '../../src/domain/errors.js';
import { MemoryEventStore } from '../../src/infrastructure/memory/memoryEventStore.js';
import { WrongExpectedRevisionError } from '../../src/ports/errors.js';

type E = { type: 'Added'; data: { n: number }; id?: string };
const counter: Decider<{ add: number; max?: number }, E, { total: number }> = {
  initialState: { total: 0 },
  evolve: (s, e) => ({ total: s.total + e.data.n }),
  decide: (c, s) => {
    if (c.max !== undefined && s.total + c.add > c.max) throw new DomainError('VALIDATION_ERROR', 'too much');
    return c.add === 0 ? [] : [{ type: 'Added', data: { n: c.add } }];
  },
};

describe('handleCommand', () => {
  it('reads the stream, decides and appends with the expected revision', async () => {
    const store = new MemoryEventStore();
    const r1 = await handleCommand(store, 'counter-1', counter, { add: 2 });
    expect(r1).toMatchObject({ state: { total: 2 }, revision: 0n, position: 0n });
    const r2 = await handleCommand(store, 'counter-1', counter, { add: 3 });
    expect(r2).toMatchObject({ state: { total: 5 }, revision: 1n });
  });

  it('appends nothing when the decision yields no events', async () => {
    const store = new MemoryEventStore();
    const r = await handleCommand(store, 'counter-2', counter, { add: 0 });
    expect(r).toMatchObject({ events: [], revision: -1n, position: null });
    expect(await store.headPosition()).toBeNull();
  });

  it('re-decides on a concurrent write, so the rule holds over both', async () => {
    const store = new MemoryEventStore();
    const results = await Promise.allSettled(Array.from({ length: 5 }, () => handleCommand(store, 'counter-3', counter, { add: 1, max: 3 }, { maxRetries: 10 })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
    expect((await loadState(store, 'counter-3', counter)).state.total).toBe(3);
  });

  it('gives up with the conflict error after the bounded retries', async () => {
    const store = new MemoryEventStore();
    const append = store.append.bind(store);
    let calls = 0;
    store.append = async (stream, events, expected) => {
      calls++;
      await append(stream, [{ id: crypto.randomUUID(), type: 'Added', data: { n: 1 } }], 'any'); // someone else always wins
      return append(stream, events, expected);
    };
    await expect(handleCommand(store, 'counter-4', counter, { add: 1 }, { maxRetries: 2 })).rejects.toBeInstanceOf(WrongExpectedRevisionError);
    expect(calls).toBe(3);
  });

  it('reads only the events appended since the last load, including other writers\u2019 events', async () => {
    const store = new MemoryEventStore();
    await handleCommand(store, 'counter-5', counter, { add: 1 });
    await handleCommand(store, 'counter-5', counter, { add: 1 });
    const reads: (bigint | undefined)[] = [];
    const readStream = store.readStream.bind(store);
    store.readStream = async (stream, options) => {
      reads.push(options?.fromRevision);
      return readStream(stream, options);
    };
    // Another writer (another instance) appends behind this process's back.
    await store.append('counter-5', [{ id: crypto.randomUUID(), type: 'Added', data: { n: 10 } }], 1n);
    expect((await loadState(store, 'counter-5', counter)).state.total).toBe(12);
    expect(reads).toEqual([2n]);
    expect(await handleCommand(store, 'counter-5', counter, { add: 1 })).toMatchObject({ state: { total: 13 }, revision: 3n });
  });

  it('given 1,200 events beyond the cache and 50 concurrent loads, then the tail is read once, in pages, and every load sees it all', async () => {
    const store = new MemoryEventStore();
    await handleCommand(store, 'counter-hot', counter, { add: 1 });
    for (let i = 0; i < 12; i++) {
      await store.append('counter-hot', Array.from({ length: 100 }, () => ({ id: crypto.randomUUID(), type: 'Added', data: { n: 1 } })), 'any');
    }
    let rowsRead = 0;
    let largestRead = 0;
    const readStream = store.readStream.bind(store);
    store.readStream = async (stream, options) => {
      const rows = await readStream(stream, options);
      rowsRead += rows.length;
      largestRead = Math.max(largestRead, rows.length);
      return rows;
    };
    const loads = await Promise.all(Array.from({ length: 50 }, () => loadState(store, 'counter-hot', counter)));
    expect(loads.every((l) => l.state.total === 1201 && l.revision === 1200n)).toBe(true);
    expect(rowsRead).toBe(1200); // not 50 × 1,200
    expect(largestRead).toBeLessThanOrEqual(512);
  });

  it('queues concurrent commands on one stream: all applied in arrival order, in a few appends, never a conflict', async () => {
    const store = new MemoryEventStore();
    const append = store.append.bind(store);
    let appends = 0;
    store.append = async (stream, events, expected) => {
      appends++;
      return append(stream, events, expected);
    };
    const results = await Promise.all(Array.from({ length: 32 }, (_, i) => handleCommand(store, 'counter-hot', counter, { add: i + 1 }, { maxRetries: 0 })));
    expect(results.map((r) => r.events[0]!.data.n)).toEqual(Array.from({ length: 32 }, (_, i) => i + 1));
    // Each command sees its predecessors: running totals 1, 3, 6, ...
    expect(results.map((r) => r.state.total)).toEqual(Array.from({ length: 32 }, (_, i) => ((i + 1) * (i + 2)) / 2));
    expect(results.map((r) => r.revision)).toEqual(Array.from({ length: 32 }, (_, i) => BigInt(i)));
    expect(appends).toBeLessThanOrEqual(2);
    const stored = await store.readStream('counter-hot');
    expect(stored.map((e) => (e.data as { n: number }).n)).toEqual(Array.from({ length: 32 }, (_, i) => i + 1));
  });

  it('a refused command of a batch fails alone; the others are appended', async () => {
    const store = new MemoryEventStore();
    const results = await Promise.allSettled([1, 5, 1, 1].map((add) => handleCommand(store, 'counter-mix', counter, { add, max: 3 })));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    expect((await loadState(store, 'counter-mix', counter)).state.total).toBe(3);
  });

  describe('deterministic ids make a redelivery a no-op', () => {
    const withId = (seed: string): typeof counter => ({ ...counter, decide: (c, s) => counter.decide(c, s).map((e) => ({ ...e, id: `${seed}-${e.type}` })) });

    it('given the same events already stored by another process, when the command runs again, then nothing new and the stored state', async () => {
      const store = new MemoryEventStore();
      // Another process stored this delivery's event; this process's cache has not seen it.
      await store.append('counter-dup', [{ id: 'delivery-1-Added', type: 'Added', data: { n: 7 } }], 'no_stream');
      const r = await handleCommand(store, 'counter-dup', withId('delivery-1'), { add: 7 });
      expect(r).toMatchObject({ events: [], duplicate: true, state: { total: 7 }, revision: 0n, position: null });
      expect(await store.readStream('counter-dup')).toHaveLength(1);
    });

    it('given an event id stored long ago, when a late redelivery decides on a newer state, then it appends nothing', async () => {
      const store = new MemoryEventStore();
      await handleCommand(store, 'counter-late', withId('delivery-1'), { add: 1 });
      await handleCommand(store, 'counter-late', counter, { add: 2 });
      const r = await handleCommand(store, 'counter-late', withId('delivery-1'), { add: 1 });
      expect(r).toMatchObject({ events: [], duplicate: true, state: { total: 3 } });
      // The batch around it still lands.
      const [a, b] = await Promise.all([
        handleCommand(store, 'counter-late', counter, { add: 10 }),
        handleCommand(store, 'counter-late', withId('delivery-1'), { add: 1 }),
      ]);
      expect(a.events).toHaveLength(1);
      expect(b).toMatchObject({ events: [], duplicate: true });
      expect((await loadState(store, 'counter-late', counter)).state.total).toBe(13);
    });
  });
});
