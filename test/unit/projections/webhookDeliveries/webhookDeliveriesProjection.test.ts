import { describe, expect, it } from 'vitest';
import { webhookDeliveriesProjection } from '../../../../src/projections/webhookDeliveries/webhookDeliveriesProjection.js';
import { projectionSpec, recorded } from '../../../support/projectionSpec.js';

const company = '0b7e2a52-54a3-4a4f-9a53-3c1c3e0f0001';
const endpointId = 'eeeeeeee-0000-4000-8000-000000000001';
const at = (s: number) => `2026-01-01T10:00:0${s}.000Z`;
const attempt = (n: number, ok: boolean, httpStatus: number, nextRetryAt: string | null) =>
  recorded(`webhookdelivery-${endpointId}-7`, 'WebhookDeliveryAttempted', {
    endpointId, companyId: company, deliveryId: '7', eventId: 'evt_1', eventType: 'message.received', attempt: n, ok, httpStatus, latencyMs: 12, response: ok ? 'ok' : 'nope', nextRetryAt, trigger: 'delivery', at: at(n),
  });

describe('webhookDeliveries projection', () => {
  it('one document per delivery: attempts counted, newest first, status from the last one', async () => {
    await projectionSpec(webhookDeliveriesProjection)
      .given([attempt(1, false, 500, at(5)), attempt(2, true, 200, null)])
      .then({
        webhook_deliveries: [
          expect.objectContaining({
            id: `${endpointId}:7`, status: 'delivered', attempts: 2, nextRetryAt: null, createdAt: at(1), updatedAt: at(2),
            recentAttempts: [expect.objectContaining({ attempt: 2, httpStatus: 200 }), expect.objectContaining({ attempt: 1, httpStatus: 500, response: 'nope' })],
          }),
        ],
      });
  });

  it('a success recorded in a batch with the endpoint\'s progress lands in the same delivery\'s document as its failure', async () => {
    const batched = recorded(`webhookprogress-${endpointId}`, 'WebhookDeliveryAttempted', {
      endpointId, companyId: company, deliveryId: '7', eventId: 'evt_1', eventType: 'message.received', attempt: 2, ok: true, httpStatus: 204, latencyMs: 3, response: '', nextRetryAt: null, trigger: 'delivery', at: at(6),
    });
    const advanced = recorded(`webhookprogress-${endpointId}`, 'WebhookDeliveriesAdvanced', { endpointId, through: 7, replayId: null, at: at(6) });
    await projectionSpec(webhookDeliveriesProjection)
      .given([attempt(1, false, 500, at(5)), batched, advanced])
      .then({
        webhook_deliveries: [
          expect.objectContaining({
            id: `${endpointId}:7`, status: 'delivered', attempts: 2, nextRetryAt: null,
            recentAttempts: [expect.objectContaining({ attempt: 2, httpStatus: 204 }), expect.objectContaining({ attempt: 1, httpStatus: 500 })],
          }),
        ],
      });
  });
});

describe('webhookDeliveries projection: successes recorded a batch per event', () => {
  const success = (n: number, attempt = 1) => ({ deliveryId: String(n), eventId: `evt_${n}`, eventType: 'message.received', attempt, httpStatus: 204, latencyMs: n, response: '', at: at(n % 10) });
  const batch = (...deliveries: ReturnType<typeof success>[]) =>
    recorded(`webhookprogress-${endpointId}`, 'WebhookDeliveriesSucceeded', { endpointId, companyId: company, deliveries });

  it('given a batch of three first deliveries, then the log holds one document for them, not three', async () => {
    await projectionSpec(webhookDeliveriesProjection)
      .given([batch(success(5), success(6), success(7))])
      .then({
        webhook_deliveries: [expect.objectContaining({ kind: 'batch', batch: 1, lo: 5, hi: 7, entries: [5, 6, 7].map((n) => expect.objectContaining({ deliveryId: String(n), attempt: 1 })) })],
        webhook_delivery_logs: [{ id: endpointId, batches: 1, maxN: 7 }],
      });
  });

  it('given a delivery of a batch, when it is attempted again (a resend), then it leaves the batch for a document of its own with both attempts', async () => {
    const resend = recorded(`webhookdelivery-${endpointId}-6`, 'WebhookDeliveryAttempted', {
      endpointId, companyId: company, deliveryId: '6', eventId: 'evt_6', eventType: 'message.received', attempt: 2, ok: true, httpStatus: 200, latencyMs: 9, response: 'ok', nextRetryAt: null, trigger: 'resend', at: at(9),
    });
    await projectionSpec(webhookDeliveriesProjection)
      .given([batch(success(5), success(6), success(7)), resend])
      .then({
        webhook_deliveries: [
          expect.objectContaining({ kind: 'batch', lo: 5, hi: 7, entries: [expect.objectContaining({ deliveryId: '5' }), expect.objectContaining({ deliveryId: '7' })] }),
          expect.objectContaining({
            id: `${endpointId}:6`, status: 'delivered', attempts: 2, createdAt: at(6), updatedAt: at(9),
            recentAttempts: [expect.objectContaining({ attempt: 2, trigger: 'resend' }), expect.objectContaining({ attempt: 1, trigger: 'delivery', httpStatus: 204 })],
          }),
        ],
      });
  });

  it('given a failed delivery, when its retry succeeds in a batch, then the retry joins its document and the batch takes only the new ones', async () => {
    await projectionSpec(webhookDeliveriesProjection)
      .given([attempt(1, false, 500, at(5)), batch(success(7, 2), success(8), success(9))])
      .then({
        webhook_deliveries: [
          expect.objectContaining({ id: `${endpointId}:7`, status: 'delivered', attempts: 2, sub: 0 }),
          expect.objectContaining({ kind: 'batch', batch: 1, lo: 8, hi: 9, sub: 2 }),
        ],
        webhook_delivery_logs: [{ id: endpointId, batches: 1, maxN: 9 }],
      });
  });
});
