import { describe, it } from 'vitest';
import { webhookEndpointsProjection } from '../../../../src/projections/webhookEndpoints/webhookEndpointsProjection.js';
import { projectionSpec, recorded } from '../../../support/projectionSpec.js';

const company = '0b7e2a52-54a3-4a4f-9a53-3c1c3e0f0001';
const e1 = 'eeeeeeee-0000-4000-8000-000000000001';
const e2 = 'eeeeeeee-0000-4000-8000-000000000002';
const replayId = 'ffffffff-0000-4000-8000-000000000001';
const at = (s: number) => `2026-01-01T10:00:0${s}.000Z`;
const s = `webhookendpoints-${company}`;
const fields = { url: 'https://crm.example.com/hooks', eventTypes: ['*'], active: true, description: 'CRM' };

describe('webhookEndpoints projection', () => {
  it('lists endpoints without their secrets, with rotation, disabling and the latest replay; deleted ones leave', async () => {
    await projectionSpec(webhookEndpointsProjection)
      .given([
        recorded(s, 'WebhookEndpointCreated', { endpointId: e1, companyId: company, ...fields, secret: 'v1:sealed', by: 'user:u1', at: at(0) }),
        recorded(s, 'WebhookEndpointCreated', { endpointId: e2, companyId: company, ...fields, secret: 'v1:sealed2', by: 'user:u1', at: at(1) }),
        recorded(s, 'WebhookEndpointSecretRotated', { endpointId: e1, secret: 'v1:sealed3', previousValidUntil: '2026-01-02T10:00:02.000Z', by: 'user:u1', at: at(2) }),
        recorded(s, 'WebhookEndpointDisabled', { endpointId: e1, reason: 'failed for 24 h', at: at(3) }),
        recorded(s, 'WebhookEndpointReplayRequested', { endpointId: e1, replayId, from: at(0), by: 'user:u1', at: at(4) }),
        recorded(s, 'WebhookEndpointDeleted', { endpointId: e2, by: 'user:u1', at: at(5) }),
      ])
      .then({
        webhook_endpoints: [
          { id: e1, companyId: company, ...fields, active: false, disabled: { reason: 'failed for 24 h', at: at(3) }, previousSecretValidUntil: '2026-01-02T10:00:02.000Z', replay: { replayId, from: at(0) }, createdAt: at(0), updatedAt: at(3) },
        ],
      });
  });
});
