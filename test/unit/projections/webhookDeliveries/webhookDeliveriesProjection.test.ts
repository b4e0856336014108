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
