import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { pollingSubscription } from '../../src/infrastructure/eventStoreSupport.js';
import { MemoryEventStore } from '../../src/infrastructure/memory/memoryEventStore.js';
import type { ReadAllOptions } from '../../src/ports/eventStore.js';

describe('catch-up subscription with a filter', () => {
  it('moves its cursor past events that do not match, so later reads do not rescan them', async () => {
    const store = new MemoryEventStore();
    const reads: (bigint | null | undefined)[] = [];
    const readAll = store.readAll.bind(store);
    store.readAll = async (options?: ReadAllOptions) => {
      reads.push(options?.after);
      return readAll(options);
    };
    const seen: string[] = [];
    const sub = store.subscribe({ filter: { eventTypes: ['Wanted'] } }, async (events) => {
      seen.push(...events.map((e) => e.id));
    });
    for (let i = 0; i < 50; i++) await store.append(`noise-${i}`, [{ id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, type: 'Noise', data: {} }], 'any');
    // Nothing matched, yet the cursor has moved past the 50 events it scanned.
    await expect.poll(() => reads.at(-1)).toBe(49n);
    expect(seen).toEqual([]);
    await store.append('wanted-1', [{ id: '11111111-1111-4111-8111-111111111111', type: 'Wanted', data: {} }], 'any');
    await expect.poll(() => seen).toEqual(['11111111-1111-4111-8111-111111111111']);
    await expect.poll(() => reads.at(-1)).toBe(50n);
    await sub.stop();
  });
});

describe('catch-up subscription over a server connection', () => {
  const lost = Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' });
  const retry = { isTransient: (err: unknown) => err === lost, forMs: 5_000 };

  it('reads again after a read lost to a dropped connection, delivering every event once, without onError', async () => {
    const store = new MemoryEventStore();
    await store.append('s-1', [{ id: '22222222-2222-4222-8222-222222222222', type: 'T', data: {} }], 'no_stream');
    let failures = 2;
    const readAll = store.readAll.bind(store);
    const flaky = {
      headPosition: () => store.headPosition(),
      readAll: async (options?: ReadAllOptions) => {
        if (failures > 0) {
          failures--;
          throw lost;
        }
        return readAll(options);
      },
    };
    const seen: string[] = [];
    const errors: unknown[] = [];
    const sub = pollingSubscription(flaky, new EventEmitter(), { onError: (e) => errors.push(e) }, async (events) => {
      seen.push(...events.map((e) => e.id));
    }, 20, retry);
    await expect.poll(() => seen).toEqual(['22222222-2222-4222-8222-222222222222']);
    expect(failures).toBe(0);
    expect(errors).toEqual([]);
    await sub.stop();
  });

  it('fails for good on an error that is not a lost connection, and when reads keep failing past forMs', async () => {
    const boom = new Error('syntax error');
    const errors: unknown[] = [];
    const failing = (err: unknown) => ({ headPosition: async () => null, readAll: async () => Promise.reject(err) });
    const a = pollingSubscription(failing(boom), new EventEmitter(), { onError: (e) => errors.push(e) }, async () => undefined, 20, retry);
    await expect.poll(() => errors).toEqual([boom]);
    await a.stop();

    const b = pollingSubscription(failing(lost), new EventEmitter(), { onError: (e) => errors.push(e) }, async () => undefined, 20, { ...retry, forMs: 200 });
    await expect.poll(() => errors, { timeout: 5_000 }).toEqual([boom, lost]);
    await b.stop();
  });
});
