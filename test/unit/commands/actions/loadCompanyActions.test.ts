import { describe, expect, it } from 'vitest';
import { createAction, updateAction } from '../../../../src/commands/actions/actions.js';
import { loadCompanyActions } from '../../../../src/commands/actions/streamReads.js';
import { MemoryEventStore } from '../../../../src/infrastructure/memory/memoryEventStore.js';
import type { ReadStreamOptions } from '../../../../src/ports/eventStore.js';
import { silentLogger } from '../../../../src/ports/logger.js';

const company = '0b7e2a52-54a3-4a4f-9a53-3c1c3e0f0001';
const actor = { companyId: company, userId: 'u1' };
const clock = { now: () => new Date('2026-11-26T10:00:00.000Z') };
const secretBox = { seal: (plain: string) => `v1:${Buffer.from(plain).toString('base64')}`, open: (sealed: string) => Buffer.from(sealed.slice(3), 'base64').toString() };
const fields = (name: string) => ({
  name,
  description: 'Finds an order',
  parameters: { type: 'object' as const, properties: { order_id: { type: 'string' as const } }, required: ['order_id'] },
  method: 'GET' as const,
  urlTemplate: 'https://shop.example/orders/{order_id}',
  mode: 'auto' as const,
  sampleResponse: { status: 'shipped' },
});

describe('loadCompanyActions', () => {
  it('given a folded stream, when an action changes, then the next load reads only the events after the revision it had', async () => {
    const store = new MemoryEventStore();
    const reads: ReadStreamOptions[] = [];
    const readStream = store.readStream.bind(store);
    store.readStream = (stream, options) => {
      if (stream === `actions-${company}`) reads.push(options ?? {});
      return readStream(stream, options);
    };
    const deps = { eventStore: store, clock, logger: silentLogger, secretBox };
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push((await createAction(deps, actor, { fields: fields(`action_${i}`), headers: [{ name: 'X-Key', value: `secret-${i}` }] })).action.actionId);

    const first = await loadCompanyActions(store, company);
    expect(first.actions.size).toBe(20);
    await updateAction(deps, actor, ids[3]!, { changes: { description: 'Changed' } });
    reads.length = 0;
    const next = await loadCompanyActions(store, company);

    expect(next.actions.get(ids[3]!)?.description).toBe('Changed');
    expect(reads.map((r) => r.fromRevision)).toEqual([21n]);
    // Header values are sealed in the state the worker reads, and open to the caller.
    const header = next.actions.get(ids[0]!)!.headers[0]!;
    expect(header.sealedValue).not.toContain('secret-0');
    expect(secretBox.open(header.sealedValue)).toBe('secret-0');
  });
});
