import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { CommandDeps } from '../../../../src/commands/deps.js';
import { loadDeliveryProgress, moveDeliveryProgress, recordDeliveries } from '../../../../src/commands/webhookDeliveries/deliveries.js';
import { SUCCESSES_PER_EVENT, webhookProgressStream } from '../../../../src/domain/webhookDeliveries/events.js';
import { MemoryEventStore } from '../../../../src/infrastructure/memory/memoryEventStore.js';
import { silentLogger } from '../../../../src/ports/logger.js';

/**
 * The delivery worker records its successes in batches, with the progress they make, in one append to the
 * endpoint's progress stream. Run on both kinds of store: SQLite's guarantees, and EventStoreDB's weaker ones.
 */
const stores = [
  ['strict (SQLite) semantics', () => new MemoryEventStore()],
  ['EventStoreDB semantics', () => new MemoryEventStore({ semantics: 'eventstoredb' })],
] as const;
const companyId = randomUUID();
const T = '2026-11-26T12:00:00.000Z';

const success = (endpointId: string, n: number) => ({
  endpointId,
  companyId,
  deliveryId: String(n),
  eventId: `evt_${n}`,
  eventType: 'message.received',
  attempt: 1,
  ok: true,
  httpStatus: 204,
  latencyMs: 3,
  response: '',
  nextRetryAt: null,
  trigger: 'delivery' as const,
  at: T,
});

describe.each(stores)('recordDeliveries (%s)', (_name, makeStore) => {
  const setup = async () => {
    const eventStore = makeStore();
    const deps: CommandDeps = { eventStore, clock: { now: () => new Date(T) }, logger: silentLogger };
    const endpointId = randomUUID();
    const start = (await moveDeliveryProgress(deps, { companyId, endpointId, from: await loadDeliveryProgress(deps, endpointId), to: 4 }))!;
    return { eventStore, deps, endpointId, start };
  };

  it('given progress at 4, when deliveries 5..7 are recorded, then one append holds one event of the three successes and the progress, last', async () => {
    const { eventStore, deps, endpointId, start } = await setup();
    const recorded = await recordDeliveries(deps, { companyId, endpointId, from: start, to: 7, attempts: [5, 6, 7].map((n) => success(endpointId, n)) });
    expect(recorded).toMatchObject({ through: 7, replayId: null });
    const stream = await eventStore.readStream(webhookProgressStream(endpointId));
    expect(stream.map((e) => e.type)).toEqual(['WebhookDeliveriesAdvanced', 'WebhookDeliveriesSucceeded', 'WebhookDeliveriesAdvanced']);
    expect((stream[1]!.data as { deliveries: { deliveryId: string }[] }).deliveries.map((d) => d.deliveryId)).toEqual(['5', '6', '7']);
    expect(new Set(stream.slice(1).map((e) => e.position)).size).toBe(2);
    expect(await loadDeliveryProgress(deps, endpointId)).toEqual(recorded);
  });

  it('given progress at 0, when 250 deliveries are recorded, then they go as events of at most SUCCESSES_PER_EVENT, in order', async () => {
    const { eventStore, deps, endpointId, start } = await setup();
    const attempts = Array.from({ length: 250 }, (_, k) => success(endpointId, 5 + k));
    expect(await recordDeliveries(deps, { companyId, endpointId, from: start, to: 254, attempts })).toMatchObject({ through: 254 });
    const batches = (await eventStore.readStream(webhookProgressStream(endpointId))).filter((e) => e.type === 'WebhookDeliveriesSucceeded');
    const sizes = batches.map((e) => (e.data as { deliveries: unknown[] }).deliveries.length);
    expect(sizes).toEqual([SUCCESSES_PER_EVENT, SUCCESSES_PER_EVENT, 250 - 2 * SUCCESSES_PER_EVENT]);
    expect(batches.flatMap((e) => (e.data as { deliveries: { deliveryId: string }[] }).deliveries.map((d) => Number(d.deliveryId)))).toEqual(attempts.map((a) => Number(a.deliveryId)));
  });

  it('given another worker moved the progress meanwhile, when a batch is recorded from the older revision, then nothing is written and the caller is told', async () => {
    const { eventStore, deps, endpointId, start } = await setup();
    const theirs = await recordDeliveries(deps, { companyId, endpointId, from: start, to: 6, attempts: [success(endpointId, 5), success(endpointId, 6)] });
    expect(theirs).not.toBeNull();
    const length = (await eventStore.readStream(webhookProgressStream(endpointId))).length;
    const ours = await recordDeliveries(deps, { companyId, endpointId, from: start, to: 9, attempts: [7, 8, 9].map((n) => success(endpointId, n)) });
    expect(ours).toBeNull();
    expect(await eventStore.readStream(webhookProgressStream(endpointId))).toHaveLength(length);
    expect((await loadDeliveryProgress(deps, endpointId)).through).toBe(6);
  });
});
