import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MemoryEventStore } from '../../src/infrastructure/memory/memoryEventStore.js';
import { WrongExpectedRevisionError } from '../../src/ports/errors.js';
import { eventStoreContract } from './eventStoreContract.js';

eventStoreContract('memory', async () => {
  const store = new MemoryEventStore();
  return { store, cleanup: () => store.close() };
});

// The test mode with EventStoreDB's weaker guarantees keeps the same contract (the one EventStoreDB runs in CI).
eventStoreContract(
  'memory (EventStoreDB semantics)',
  async () => {
    const store = new MemoryEventStore({ semantics: 'eventstoredb' });
    return { store, cleanup: () => store.close() };
  },
  { eventIdsUniqueAcrossStreams: false },
);

const ev = (id: string = randomUUID()) => ({ id, type: 'Tested', data: {} });

describe('MemoryEventStore with EventStoreDB semantics: a repeated id is recognised only at the same expected revision', () => {
  it('given ids stored at revision 0, when they are appended again at the current revision, then they are stored again', async () => {
    const store = new MemoryEventStore({ semantics: 'eventstoredb' });
    const charge = ev();
    await store.append('s', [charge], 'no_stream');
    await store.append('s', [ev()], 0n);
    const again = await store.append('s', [charge], 1n);
    expect(again.duplicate).toBeFalsy();
    expect((await store.readStream('s')).map((e) => e.id)).toEqual([charge.id, expect.any(String), charge.id]);
  });

  it('given ids stored at revision 0, when retried at their original expected revision, then nothing is stored and the answer is the original one', async () => {
    const store = new MemoryEventStore({ semantics: 'eventstoredb' });
    const first = ev();
    const original = await store.append('s', [first], 'no_stream');
    await store.append('s', [ev()], 0n);
    expect(await store.append('s', [first], 'no_stream')).toEqual({ ...original, duplicate: true });
    expect(await store.readStream('s')).toHaveLength(2);
  });

  it('given a retry at a revision the stream has passed with other ids there, then it conflicts', async () => {
    const store = new MemoryEventStore({ semantics: 'eventstoredb' });
    const first = ev();
    await store.append('s', [ev()], 'no_stream');
    await store.append('s', [first], 0n);
    await expect(store.append('s', [first], 'no_stream')).rejects.toBeInstanceOf(WrongExpectedRevisionError);
  });

  it("given 'any', a repeated id is recognised only while it is among the recently appended ids", async () => {
    const store = new MemoryEventStore({ semantics: 'eventstoredb', recentIds: 2 });
    const old = ev();
    await store.append('s', [old], 'any');
    expect((await store.append('s', [old], 'any')).duplicate).toBe(true);
    await store.append('t', [ev(), ev()], 'any');
    expect((await store.append('s', [old], 'any')).duplicate).toBeFalsy();
    expect(await store.readStream('s')).toHaveLength(2);
  });

  it('keeps no index of ids across streams', async () => {
    const store = new MemoryEventStore({ semantics: 'eventstoredb' });
    const e = ev();
    await store.append('a', [e], 'no_stream');
    await store.append('b', [e], 'no_stream');
    expect((await store.readStream('b')).map((r) => r.id)).toEqual([e.id]);
  });
});
