import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signingSecrets } from '../../../../src/commands/webhookDeliveries/deliveries.js';
import type { SecretBox } from '../../../../src/ports/secretBox.js';
import type { WebhookEndpointEvent } from '../../../../src/domain/webhookEndpoints/events.js';
import { webhookEndpointsDecider } from '../../../../src/domain/webhookEndpoints/decider.js';
import { specFor } from '../../../support/gwt.js';

const spec = specFor(webhookEndpointsDecider);
const companyId = randomUUID();
const endpointId = randomUUID();
const now = '2026-11-26T10:00:00.000Z';
const by = 'user:u1';
const base = { companyId, by, now };
const fields = { url: 'https://crm.example.com/hooks', eventTypes: ['message.answered'], active: true, description: 'CRM' };
const created: WebhookEndpointEvent = { type: 'WebhookEndpointCreated', data: { endpointId, companyId, ...fields, secret: 'v1:sealed-1', by, at: now } };

describe('webhook endpoints', () => {
  it('create records the endpoint with its sealed secret', () => {
    spec.given([]).when({ type: 'CreateWebhookEndpoint', ...base, endpointId, secret: 'v1:sealed-1', ...fields }).then([created]);
  });

  it('create refuses an event type the catalog does not have, and a 21st endpoint', () => {
    spec.given([]).when({ type: 'CreateWebhookEndpoint', ...base, endpointId, secret: 's', ...fields, eventTypes: ['message.deleted'] }).thenThrows('VALIDATION_ERROR');
    const twenty = Array.from({ length: 20 }, (): WebhookEndpointEvent => ({ ...created, data: { ...created.data, endpointId: randomUUID() } }));
    spec.given(twenty).when({ type: 'CreateWebhookEndpoint', ...base, endpointId, secret: 's', ...fields }).thenThrows('QUOTA_EXCEEDED');
  });

  it('update records only what changed; the same values again record nothing', () => {
    spec.given([created]).when({ type: 'UpdateWebhookEndpoint', ...base, endpointId, changes: { description: 'CRM', active: false } })
      .then([{ type: 'WebhookEndpointUpdated', data: { endpointId, changes: { active: false }, by, at: now } }]);
    spec.given([created]).when({ type: 'UpdateWebhookEndpoint', ...base, endpointId, changes: { eventTypes: ['message.answered'] } }).then([]);
  });

  it('another company\'s endpoint, or a deleted one, is NOT_FOUND', () => {
    spec.given([created]).when({ type: 'DeleteWebhookEndpoint', ...base, companyId: randomUUID(), endpointId }).thenThrows('NOT_FOUND');
    spec.given([created, { type: 'WebhookEndpointDeleted', data: { endpointId, by, at: now } }]).when({ type: 'RotateWebhookEndpointSecret', ...base, endpointId, secret: 's2' }).thenThrows('NOT_FOUND');
  });

  it('rotation keeps the previous secret signing for 24 hours', () => {
    const state = spec.given([created]).when({ type: 'RotateWebhookEndpointSecret', ...base, endpointId, secret: 'v1:sealed-2' })
      .then([{ type: 'WebhookEndpointSecretRotated', data: { endpointId, secret: 'v1:sealed-2', previousValidUntil: '2026-11-27T10:00:00.000Z', by, at: now } }]);
    if (state.endpoints.get(endpointId)?.previousSecret?.secret !== 'v1:sealed-1') throw new Error('the previous secret is kept');
  });

  it('disable switches off a live endpoint once; turning it on again clears it', () => {
    const disabled: WebhookEndpointEvent = { type: 'WebhookEndpointDisabled', data: { endpointId, reason: 'failing for 24 hours', at: now } };
    spec.given([created]).when({ type: 'DisableWebhookEndpoint', ...base, endpointId, reason: 'failing for 24 hours' }).then([disabled]);
    spec.given([created, disabled]).when({ type: 'DisableWebhookEndpoint', ...base, endpointId, reason: 'again' }).then([]);
    spec.given([created, disabled]).when({ type: 'UpdateWebhookEndpoint', ...base, endpointId, changes: { active: true } })
      .then([{ type: 'WebhookEndpointUpdated', data: { endpointId, changes: { active: true }, by, at: now } }]);
  });

  it('a replay starts at a past timestamp; one in the future is refused', () => {
    const replayId = randomUUID();
    spec.given([created]).when({ type: 'RequestWebhookEndpointReplay', ...base, endpointId, replayId, from: '2026-11-26T09:00:00.000Z' })
      .then([{ type: 'WebhookEndpointReplayRequested', data: { endpointId, replayId, from: '2026-11-26T09:00:00.000Z', by, at: now } }]);
    spec.given([created]).when({ type: 'RequestWebhookEndpointReplay', ...base, endpointId, replayId, from: '2026-11-27T09:00:00.000Z' }).thenThrows('VALIDATION_ERROR');
  });

  it('the credits.low threshold is set once per change', () => {
    spec.given([]).when({ type: 'SetCreditsLowThreshold', ...base, thresholdMicros: 2_000_000 }).then([{ type: 'CreditsLowThresholdSet', data: { companyId, thresholdMicros: 2_000_000, by, at: now } }]);
    spec.given([{ type: 'CreditsLowThresholdSet', data: { companyId, thresholdMicros: 2_000_000, by, at: now } }]).when({ type: 'SetCreditsLowThreshold', ...base, thresholdMicros: 2_000_000 }).then([]);
  });
});

describe('attack: webhook endpoints under concurrent and malformed edits', () => {
  const rotated = (secret: string, at: string): WebhookEndpointEvent => ({
    type: 'WebhookEndpointSecretRotated',
    data: { endpointId, secret, previousValidUntil: new Date(Date.parse(at) + 24 * 3600_000).toISOString(), by, at },
  });
  const open = { open: (s: string) => `opened:${s}`, seal: (s: string) => s } as unknown as SecretBox;
  const signers = (events: WebhookEndpointEvent[], at: string) => signingSecrets(open, spec.given(events).state.endpoints.get(endpointId)!, new Date(at));

  it('given two rotations a moment apart (two owners at once), then the secret the receiver still holds keeps signing for its whole grace', () => {
    const history = [created, rotated('v1:sealed-2', now), rotated('v1:sealed-3', '2026-11-26T10:00:01.000Z')];
    expect(signers(history, '2026-11-26T12:00:00.000Z')).toEqual(['opened:v1:sealed-3', 'opened:v1:sealed-2', 'opened:v1:sealed-1']);
    // Each grace ends 24 hours after the rotation that replaced that secret.
    expect(signers(history, '2026-11-27T10:00:00.500Z')).toEqual(['opened:v1:sealed-3', 'opened:v1:sealed-2']);
    expect(signers(history, '2026-11-27T10:00:02.000Z')).toEqual(['opened:v1:sealed-3']);
  });

  it('given many rotations in a day, then at most a few earlier secrets sign at once', () => {
    const history = [created, ...[2, 3, 4, 5, 6, 7].map((n) => rotated(`v1:sealed-${n}`, `2026-11-26T10:00:0${n}.000Z`))];
    expect(signers(history, '2026-11-26T12:00:00.000Z')).toEqual(['opened:v1:sealed-7', 'opened:v1:sealed-6', 'opened:v1:sealed-5', 'opened:v1:sealed-4']);
  });

  it('when an update lists an event type twice, then it is recorded once (as on create)', () => {
    spec.given([created]).when({ type: 'UpdateWebhookEndpoint', ...base, endpointId, changes: { eventTypes: ['conversation.closed', 'conversation.closed', 'message.answered'] } })
      .then([{ type: 'WebhookEndpointUpdated', data: { endpointId, changes: { eventTypes: ['conversation.closed', 'message.answered'] }, by, at: now } }]);
    spec.given([created]).when({ type: 'UpdateWebhookEndpoint', ...base, endpointId, changes: { eventTypes: ['message.answered', 'message.answered'] } }).then([]);
  });
});
