import { describe, expect, it } from 'vitest';
import { MemoryEventStore } from '../../src/infrastructure/memory/memoryEventStore.js';
import { eventStoreReady, trackWriteHealth } from '../../src/infrastructure/storeHealth.js';
import { WrongExpectedRevisionError } from '../../src/ports/errors.js';
import type { EventStore } from '../../src/ports/eventStore.js';

/** A memory store whose appends fail with `failure` while it is set. */
function flakyStore() {
  const inner = new MemoryEventStore();
  const state: { failure: Error | null } = { failure: null };
  const store: EventStore = Object.assign(Object.create(inner) as EventStore, {
    append: (...args: Parameters<EventStore['append']>) => (state.failure ? Promise.reject(state.failure) : inner.append(...args)),
    headPosition: () => inner.headPosition(),
  });
  return { store, state };
}
const event = (id: string) => ({ id, type: 'T', data: {} });
const diskFull = () => Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });

describe('event store write health (readiness)', () => {
  it('is ready until an append fails for a reason of the store, then until a probe succeeds', async () => {
    const { store, state } = flakyStore();
    let probeFails = true;
    let probes = 0;
    let clock = 0;
    const tracked = trackWriteHealth(store, { probe: () => { probes++; if (probeFails) throw diskFull(); }, probeIntervalMs: 1000, now: () => clock });
    expect(await eventStoreReady(tracked)).toBe(true);
    expect(probes).toBe(0); // no probe while nothing failed

    state.failure = diskFull();
    await expect(tracked.append('s', [event('a')], 'any')).rejects.toThrow('disk is full');
    expect(await eventStoreReady(tracked)).toBe(false);
    expect(await eventStoreReady(tracked)).toBe(false);
    expect(probes).toBe(1); // reused within the interval
    clock = 1500;
    probeFails = false;
    expect(await eventStoreReady(tracked)).toBe(true);
    expect(probes).toBe(2);
    expect(await eventStoreReady(tracked)).toBe(true);
    expect(probes).toBe(2);
  });

  it('a conflict or an invalid event is the append\'s own problem, not the store\'s', async () => {
    const { store, state } = flakyStore();
    const tracked = trackWriteHealth(store, { probe: () => { throw diskFull(); } });
    state.failure = new WrongExpectedRevisionError('s', '0', '1');
    await expect(tracked.append('s', [event('a')], 0n)).rejects.toThrow(WrongExpectedRevisionError);
    state.failure = Object.assign(new Error('UNIQUE constraint failed'), { code: 'SQLITE_CONSTRAINT_UNIQUE' });
    await expect(tracked.append('s', [event('b')], 'any')).rejects.toThrow();
    expect(await eventStoreReady(tracked)).toBe(true);
  });

  it('an unreadable store is not ready; an untracked store is judged by a read alone', async () => {
    const { store } = flakyStore();
    const broken: EventStore = { ...store, headPosition: () => Promise.reject(new Error('closed')) };
    expect(await eventStoreReady(broken)).toBe(false);
    expect(await eventStoreReady(store)).toBe(true);
  });
});
