import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { eventCatalog } from '../../../../src/domain/catalog.js';
import { MemoryEventStore } from '../../../../src/infrastructure/memory/memoryEventStore.js';
import { SqliteReadStore } from '../../../../src/infrastructure/sqlite/sqliteReadStore.js';
import { validatingEventStore } from '../../../../src/infrastructure/validatingEventStore.js';
import { rebuildProjections } from '../../../../src/processing/projectionRunner.js';
import { silentLogger } from '../../../../src/ports/logger.js';
import type { ReadStore } from '../../../../src/ports/readStore.js';
import { getWebhookDelivery, listWebhookDeliveries } from '../../../../src/projections/webhookDeliveries/queries.js';
import { webhookDeliveriesProjection } from '../../../../src/projections/webhookDeliveries/webhookDeliveriesProjection.js';
import { recorded, type GivenEvent } from '../../../support/projectionSpec.js';

const company = '0b7e2a52-54a3-4a4f-9a53-3c1c3e0f0001';
const other = '0b7e2a52-54a3-4a4f-9a53-3c1c3e0f0002';
const endpointId = 'eeeeeeee-0000-4000-8000-000000000001';
const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 10, 0, s)).toISOString();
const success = (n: number, attempt = 1, s = n) => ({ deliveryId: String(n), eventId: `evt_${n}`, eventType: 'message.received', attempt, httpStatus: 204, latencyMs: n, response: `r${n}`, at: at(s) });
const batch = (...deliveries: ReturnType<typeof success>[]) => recorded(`webhookprogress-${endpointId}`, 'WebhookDeliveriesSucceeded', { endpointId, companyId: company, deliveries });
const single = (deliveryId: string, attempt: number, ok: boolean, trigger: 'delivery' | 'resend' | 'test', s: number) =>
  recorded(`webhookdelivery-${endpointId}-${deliveryId}`, 'WebhookDeliveryAttempted', {
    endpointId, companyId: company, deliveryId, eventId: `evt_${deliveryId}`, eventType: 'message.received', attempt, ok, httpStatus: ok ? 200 : 503, latencyMs: 1, response: ok ? 'ok' : 'down', nextRetryAt: ok || trigger !== 'delivery' ? null : at(s + 5), trigger, at: at(s),
  });

/** The log as a list of (delivery, attempts, status), newest first, page by page at `limit`. */
async function wholeLog(readStore: ReadStore, limit: number) {
  const out: { id: string; attempts: number; status: string; latest: string }[] = [];
  let cursor: string | null = null;
  do {
    const page = await listWebhookDeliveries(readStore, company, endpointId, { limit, cursor });
    if (page.nextCursor !== null) expect(page.items, `a page of ${limit} that is not the last`).toHaveLength(limit);
    out.push(...page.items.map((d) => ({ id: d.deliveryId, attempts: d.attempts, status: d.status, latest: d.recentAttempts[0]!.trigger })));
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}

async function projected(events: GivenEvent[], batchSize: number) {
  const eventStore = validatingEventStore(new MemoryEventStore(), eventCatalog);
  for (const e of events) await eventStore.append(e.stream, [{ id: randomUUID(), type: e.type, data: e.data }], 'any');
  const readStore = SqliteReadStore.open({ path: ':memory:' });
  await rebuildProjections({ eventStore, readStore, projections: [webhookDeliveriesProjection], logger: silentLogger, batchSize });
  return readStore;
}

describe('the delivery log read per page (GET …/deliveries) and per delivery (resend)', () => {
  // A batch, a failure and its retry in the next batch, a resend, a test, then a replay delivering 1 and 2 again.
  const given = [
    batch(...[1, 2, 3, 4, 5].map((n) => success(n))),
    single('6', 1, false, 'delivery', 6),
    batch(success(6, 2, 11), ...[7, 8, 9].map((n) => success(n))),
    single('3', 2, true, 'resend', 20),
    single('test-1', 1, true, 'test', 21),
    batch(success(1, 1, 22), success(2, 1, 23), ...Array.from({ length: 40 }, (_, k) => success(10 + k, 1, 24))),
  ];
  const newestFirst = [
    ...Array.from({ length: 40 }, (_, k) => ({ id: String(49 - k), attempts: 1, status: 'delivered', latest: 'delivery' })),
    { id: '2', attempts: 2, status: 'delivered', latest: 'delivery' },
    { id: '1', attempts: 2, status: 'delivered', latest: 'delivery' },
    { id: 'test-1', attempts: 1, status: 'delivered', latest: 'test' },
    { id: '3', attempts: 2, status: 'delivered', latest: 'resend' },
    ...[9, 8, 7].map((n) => ({ id: String(n), attempts: 1, status: 'delivered', latest: 'delivery' })),
    { id: '6', attempts: 2, status: 'delivered', latest: 'delivery' },
    ...[5, 4].map((n) => ({ id: String(n), attempts: 1, status: 'delivered', latest: 'delivery' })),
  ];

  it.each([1, 500])('given the log built %s event(s) per batch, then every page size lists each delivery once, the most recently attempted first', async (batchSize) => {
    const readStore = await projected(given, batchSize);
    try {
      for (const limit of [1, 2, 3, 7, 41, 42, 50, 200]) expect(await wholeLog(readStore, limit), `pages of ${limit}`).toEqual(newestFirst);
    } finally {
      await readStore.close();
    }
  });

  it('given the log, when one delivery is asked for by its id, then it answers its attempts wherever it is kept, and another company gets nothing', async () => {
    const readStore = await projected(given, 500);
    try {
      expect(await getWebhookDelivery(readStore, company, endpointId, '4')).toMatchObject({ attempts: 1, status: 'delivered', recentAttempts: [{ response: 'r4', httpStatus: 204 }] });
      expect(await getWebhookDelivery(readStore, company, endpointId, '30')).toMatchObject({ attempts: 1, eventId: 'evt_30' });
      expect(await getWebhookDelivery(readStore, company, endpointId, '3')).toMatchObject({ attempts: 2 });
      expect(await getWebhookDelivery(readStore, company, endpointId, '1')).toMatchObject({ attempts: 2 });
      expect(await getWebhookDelivery(readStore, company, endpointId, '999')).toBeNull();
      expect(await getWebhookDelivery(readStore, other, endpointId, '4')).toBeNull();
      expect((await listWebhookDeliveries(readStore, other, endpointId, { limit: 50 })).items).toEqual([]);
    } finally {
      await readStore.close();
    }
  });
});
