import { describe, expect, it } from 'vitest';
import { REJECTED_WEBHOOK_LOGS_KEPT, WEBHOOK_LOGS_KEPT, webhookLogsProjection } from '../../../../src/projections/platformWebhookLogs/webhookLogsProjection.js';
import { projectionSpec, recorded } from '../../../support/projectionSpec.js';

const company = '0b7e2a52-54a3-4a4f-9a53-3c1c3e0f0001';
const at = (s: number) => `2025-01-01T10:00:0${s}.000Z`;

describe('webhookLogs projection', () => {
  const spec = projectionSpec(webhookLogsProjection);
  const logId = (n: number) => `dddddddd-0000-4000-8000-${String(n).padStart(12, '0')}`;
  const entry = (integrationId: number, n: number) => ({
    logId: logId(n),
    integrationId,
    companyId: company,
    receivedAt: at(1),
    httpStatus: 200,
    outcome: 'processed' as const,
    kind: 'message' as const,
    reason: null,
    conversationId: null,
  });
  const logged = (integrationId: number, n: number) => recorded(`webhooklog-${integrationId}`, 'WebhookDeliveryLogged', entry(integrationId, n));

  it('numbers entries per integration', async () => {
    await spec.given([logged(12, 1), logged(13, 2), logged(12, 3)]).then({
      webhookLogs: [
        { id: '12:1', seq: 1, logId: logId(1), integrationId: 12, companyId: company, receivedAt: at(1), httpStatus: 200, outcome: 'processed', kind: 'message', reason: null, conversationId: null },
        expect.objectContaining({ id: '13:1', seq: 1, logId: logId(2), integrationId: 13 }),
        expect.objectContaining({ id: '12:2', seq: 2, logId: logId(3), integrationId: 12 }),
      ],
    });
  });

  it(`keeps the newest ${WEBHOOK_LOGS_KEPT} entries of an integration`, async () => {
    const events = Array.from({ length: WEBHOOK_LOGS_KEPT + 2 }, (_, i) => logged(12, i + 1));
    const kept = Array.from({ length: WEBHOOK_LOGS_KEPT }, (_, i) => ({ ...entry(12, i + 3), id: `12:${i + 3}`, seq: i + 3 }));
    await spec.given(events).then({ webhookLogs: kept });
  });

  // Regression (issue 21, defect 2): anyone can send a rejected delivery; a flood of them dropped the real ones.
  it(`keeps rejected entries in a window of their own (newest ${REJECTED_WEBHOOK_LOGS_KEPT}): however many arrive, no accepted entry is dropped`, async () => {
    const rejected = (n: number) => recorded('webhooklog-12', 'WebhookDeliveryLogged', { ...entry(12, n), httpStatus: 401, outcome: 'rejected', kind: 'other', reason: 'INVALID_SIGNATURE: Webhook signature is invalid' });
    const flood = Array.from({ length: WEBHOOK_LOGS_KEPT }, (_, i) => rejected(i + 3));
    const keptRejected = Array.from({ length: REJECTED_WEBHOOK_LOGS_KEPT }, (_, i) => WEBHOOK_LOGS_KEPT - REJECTED_WEBHOOK_LOGS_KEPT + i + 1);
    await spec.given([logged(12, 1), logged(12, 2), ...flood, logged(12, WEBHOOK_LOGS_KEPT + 3)]).then({
      webhookLogs: [
        expect.objectContaining({ id: '12:1', seq: 1, outcome: 'processed' }),
        expect.objectContaining({ id: '12:2', seq: 2, outcome: 'processed' }),
        ...keptRejected.map((r) => expect.objectContaining({ id: `12:r${r}`, seq: r + 2, outcome: 'rejected' })),
        expect.objectContaining({ id: '12:3', seq: WEBHOOK_LOGS_KEPT + 3, outcome: 'processed' }),
      ],
    });
  });
});
