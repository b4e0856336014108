import { describe, expect, it } from 'vitest';
import { integrationDecider, type IntegrationCommand } from '../../../../src/domain/integrations/decider.js';
import type { IntegrationEvent, IntegrationSettings } from '../../../../src/domain/integrations/events.js';
import { specFor } from '../../../support/gwt.js';

const C1 = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc';
const C2 = 'dddddddd-dddd-4ddd-8ddd-dddddddddddd';
const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-02T00:00:00.000Z';
const T2 = '2026-01-03T00:00:00.000Z';

const integration = specFor(integrationDecider);
const settings: IntegrationSettings = {
  name: 'Shop bot',
  apiUrl: 'https://platform.example/api',
  webhookSecret: 'v1:c2VjcmV0',
  apiToken: null,
  active: true,
  agentId: null,
  allowedOrigins: [],
};
const created: IntegrationEvent = { type: 'IntegrationCreated', data: { ...settings, integrationId: 7, companyId: C1, connectorType: 'msgplatform', at: T0 } };
const registered: IntegrationEvent = { type: 'WebhookRegistered', data: { platformWebhookId: 'wh-1', url: 'https://us.example/webhooks/7', at: T1 } };
const update = (changes: Partial<IntegrationSettings>, companyId = C1): IntegrationCommand => ({ type: 'UpdateIntegration', companyId, changes, now: T2 });

describe('integration decider', () => {
  it('creates an integration, active, with no webhook registered yet', () => {
    const state = integration
      .given([])
      .when({ type: 'CreateIntegration', integrationId: 7, companyId: C1, connectorType: 'msgplatform', now: T0, ...settings })
      .then([created]);
    expect(state).toMatchObject({ status: 'active', integrationId: 7, createdAt: T0, updatedAt: T0, webhookRegisteredAt: null, registeredUrl: null });
  });

  it('refuses to create it twice', () => {
    integration.given([created]).when({ type: 'CreateIntegration', integrationId: 7, companyId: C1, connectorType: 'msgplatform', now: T1, ...settings }).thenThrows('CONFLICT');
  });

  it('records only the settings that change; an update that changes nothing records nothing', () => {
    integration.given([created]).when(update({ name: 'Renamed', active: true })).then([{ type: 'IntegrationUpdated', data: { changes: { name: 'Renamed' }, at: T2 } }]);
    integration.given([created]).when(update({ name: 'Shop bot', allowedOrigins: [] })).then([]);
  });

  it('forgets the webhook registration when the platform address changes, keeps it otherwise', () => {
    const moved = integration.given([created, registered]).when(update({ apiUrl: 'https://other.example/api' })).then([
      { type: 'IntegrationUpdated', data: { changes: { apiUrl: 'https://other.example/api' }, at: T2 } },
    ]);
    expect(moved).toMatchObject({ webhookRegisteredAt: null, registeredUrl: null, updatedAt: T2 });
    const renamed = integration.given([created, registered]).when(update({ name: 'Renamed' })).then([{ type: 'IntegrationUpdated', data: { changes: { name: 'Renamed' }, at: T2 } }]);
    expect(renamed).toMatchObject({ webhookRegisteredAt: T1, registeredUrl: 'https://us.example/webhooks/7' });
  });

  it('records a webhook registration', () => {
    const state = integration
      .given([created])
      .when({ type: 'RecordWebhookRegistration', companyId: C1, platformWebhookId: 'wh-1', url: 'https://us.example/webhooks/7', now: T1 })
      .then([registered]);
    expect(state).toMatchObject({ webhookRegisteredAt: T1, registeredUrl: 'https://us.example/webhooks/7' });
  });

  it('deletes it; a deleted integration is not found', () => {
    const deleted = integration.given([created]).when({ type: 'DeleteIntegration', companyId: C1, now: T1 }).then([{ type: 'IntegrationDeleted', data: { at: T1 } }]);
    expect(deleted).toMatchObject({ status: 'deleted', updatedAt: T1 });
    integration.given([created, { type: 'IntegrationDeleted', data: { at: T1 } }]).when(update({ name: 'Renamed' })).thenThrows('NOT_FOUND');
  });

  it("another company's integration, or one that does not exist, is not found", () => {
    integration.given([created]).when(update({ name: 'Renamed' }, C2)).thenThrows('NOT_FOUND');
    integration.given([created]).when({ type: 'DeleteIntegration', companyId: C2, now: T1 }).thenThrows('NOT_FOUND');
    integration.given([]).when({ type: 'DeleteIntegration', companyId: C1, now: T1 }).thenThrows('NOT_FOUND');
  });
});

describe('the platform token stays with its address', () => {
  const withToken: IntegrationEvent = { type: 'IntegrationCreated', data: { ...settings, apiToken: 'v1:dG9rZW4', integrationId: 7, companyId: C1, connectorType: 'msgplatform', at: T0 } };

  it('given a stored token, when only apiUrl moves to another host, then VALIDATION_ERROR: the token must come again', () => {
    integration.given([withToken]).when(update({ apiUrl: 'https://attacker.example/api' })).thenThrows('VALIDATION_ERROR');
    integration.given([withToken]).when(update({ apiUrl: 'http://platform.example/api' })).thenThrows('VALIDATION_ERROR');
  });

  it('given a stored token, when apiUrl moves with the token given again, or is cleared, or keeps its host, then it is recorded', () => {
    integration
      .given([withToken])
      .when(update({ apiUrl: 'https://eu.platform.example/api', apiToken: 'v1:bmV3' }))
      .then([{ type: 'IntegrationUpdated', data: { changes: { apiUrl: 'https://eu.platform.example/api', apiToken: 'v1:bmV3' }, at: T2 } }]);
    integration.given([withToken]).when(update({ apiUrl: 'https://other.example/api', apiToken: null })).then([
      { type: 'IntegrationUpdated', data: { changes: { apiUrl: 'https://other.example/api', apiToken: null }, at: T2 } },
    ]);
    integration.given([withToken]).when(update({ apiUrl: 'https://platform.example/v2' })).then([{ type: 'IntegrationUpdated', data: { changes: { apiUrl: 'https://platform.example/v2' }, at: T2 } }]);
  });

  it('given a stored token and no address, when an address is set without the token, then VALIDATION_ERROR', () => {
    const cleared: IntegrationEvent = { type: 'IntegrationUpdated', data: { changes: { apiUrl: null }, at: T1 } };
    integration.given([withToken]).when(update({ apiUrl: null })).then([{ type: 'IntegrationUpdated', data: { changes: { apiUrl: null }, at: T2 } }]);
    integration.given([withToken, cleared]).when(update({ apiUrl: 'https://attacker.example/api' })).thenThrows('VALIDATION_ERROR');
  });
});
