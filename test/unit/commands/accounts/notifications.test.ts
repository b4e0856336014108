import { describe, expect, it } from 'vitest';
import { claimNotification } from '../../../../src/commands/accounts/notifications.js';
import { MemoryEventStore } from '../../../../src/infrastructure/memory/memoryEventStore.js';
import { silentLogger } from '../../../../src/ports/logger.js';

const data = {
  kind: 'assigned' as const,
  userId: 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa',
  companyId: 'cccccccc-cccc-4ccc-8ccc-cccccccccccc',
  conversationId: 'dddddddd-dddd-4ddd-8ddd-dddddddddddd',
  at: '2026-11-22T10:00:00.000Z',
  occasion: 'assignment-1',
};

/** A notification email is claimed once, on both kinds of event store (strict, and EventStoreDB's guarantees only). */
describe.each([
  ['strict (SQLite) semantics', () => new MemoryEventStore()],
  ['EventStoreDB semantics', () => new MemoryEventStore({ semantics: 'eventstoredb' })],
] as const)('notification claims (%s)', (_name, makeStore) => {
  it('given an email claimed, when claimed again (a redelivered job, another instance, at once or later), then only the first claim wins', async () => {
    const eventStore = makeStore();
    const deps = { eventStore, clock: { now: () => new Date(data.at) }, logger: silentLogger };
    const [a, b] = await Promise.all([claimNotification(deps, data), claimNotification(deps, data)]);
    expect([a, b].sort()).toEqual([false, true]);
    expect(await claimNotification(deps, data)).toBe(false);
    expect(await claimNotification(deps, { ...data, occasion: 'assignment-2' })).toBe(true);
  });
});
