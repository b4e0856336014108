import { describe, expect, it } from 'vitest';
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
