import type { Decider } from '../decider.js';
import { DomainError } from '../errors.js';
import { isPublicEventType } from '../publicEvents/catalog.js';
import { SECRET_ROTATION_GRACE_MS, WEBHOOK_ENDPOINT_LIMITS, webhookEndpointFields, type WebhookEndpointEvent, type WebhookEndpointFields } from './events.js';
import { evolveWebhookEndpoints, initialWebhookEndpointsState, type WebhookEndpointsState } from './state.js';

type Base = { companyId: string; by: string; now: string };
export type WebhookEndpointCommand =
  | (Base & { type: 'CreateWebhookEndpoint'; endpointId: string; secret: string } & WebhookEndpointFields)
  | (Base & { type: 'UpdateWebhookEndpoint'; endpointId: string; changes: Partial<WebhookEndpointFields> })
  | (Base & { type: 'DeleteWebhookEndpoint'; endpointId: string })
  | (Base & { type: 'RotateWebhookEndpointSecret'; endpointId: string; secret: string })
  | (Base & { type: 'DisableWebhookEndpoint'; endpointId: string; reason: string })
  | (Base & { type: 'RequestWebhookEndpointReplay'; endpointId: string; replayId: string; from: string })
  | (Base & { type: 'SetCreditsLowThreshold'; thresholdMicros: number });

const notFound = () => new DomainError('NOT_FOUND', 'Webhook endpoint not found');

function checkFields(fields: Partial<WebhookEndpointFields>): void {
  const parsed = webhookEndpointFields.partial().safeParse(fields);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new DomainError('VALIDATION_ERROR', `${issue?.path.map(String).join('.') || 'endpoint'}: ${issue?.message ?? 'invalid'}`);
  }
  const unknown = fields.eventTypes?.find((t) => t !== '*' && !isPublicEventType(t));
  if (unknown !== undefined) throw new DomainError('VALIDATION_ERROR', `eventTypes: ${unknown} is not a public event type`);
}

export const webhookEndpointsDecider: Decider<WebhookEndpointCommand, WebhookEndpointEvent, WebhookEndpointsState> = {
  initialState: initialWebhookEndpointsState,
  evolve: evolveWebhookEndpoints,
  decide(command, state) {
    if (state.companyId !== null && state.companyId !== command.companyId) throw notFound();
    const { by, now: at } = command;
    if (command.type === 'CreateWebhookEndpoint') {
      const { url, eventTypes, active, description, endpointId, companyId, secret } = command;
      checkFields({ url, eventTypes, active, description });
      if (state.endpoints.size >= WEBHOOK_ENDPOINT_LIMITS.count) {
        throw new DomainError('QUOTA_EXCEEDED', `A company may have at most ${WEBHOOK_ENDPOINT_LIMITS.count} webhook endpoints; delete one first`);
      }
      return [{ type: 'WebhookEndpointCreated', data: { endpointId, companyId, url, eventTypes: [...new Set(eventTypes)], active, description, secret, by, at } }];
    }
    if (command.type === 'SetCreditsLowThreshold') {
      if (state.companyId !== null && state.creditsLowThresholdMicros === command.thresholdMicros) return [];
      return [{ type: 'CreditsLowThresholdSet', data: { companyId: command.companyId, thresholdMicros: command.thresholdMicros, by, at } }];
    }
    const known = state.endpoints.get(command.endpointId);
    if (!known) throw notFound();
    const endpointId = known.id;
    switch (command.type) {
      case 'UpdateWebhookEndpoint': {
        checkFields(command.changes);
        // A type listed twice is one subscription, as on create.
        const given = command.changes.eventTypes ? { ...command.changes, eventTypes: [...new Set(command.changes.eventTypes)] } : command.changes;
        const changes = Object.fromEntries(
          Object.entries(given).filter(([k, v]) => v !== undefined && JSON.stringify(v) !== JSON.stringify(known[k as keyof WebhookEndpointFields])),
        ) as Partial<WebhookEndpointFields>;
        if (Object.keys(changes).length === 0) return [];
        return [{ type: 'WebhookEndpointUpdated', data: { endpointId, changes, by, at } }];
      }
      case 'DeleteWebhookEndpoint':
        return [{ type: 'WebhookEndpointDeleted', data: { endpointId, by, at } }];
      case 'RotateWebhookEndpointSecret': {
        const previousValidUntil = new Date(Date.parse(at) + SECRET_ROTATION_GRACE_MS).toISOString();
        return [{ type: 'WebhookEndpointSecretRotated', data: { endpointId, secret: command.secret, previousValidUntil, by, at } }];
      }
      case 'DisableWebhookEndpoint':
        // Only a live endpoint is switched off: a failure noticed after someone turned it off changes nothing.
        if (!known.active) return [];
        return [{ type: 'WebhookEndpointDisabled', data: { endpointId, reason: command.reason, at } }];
      case 'RequestWebhookEndpointReplay':
        if (Date.parse(command.from) > Date.parse(at)) throw new DomainError('VALIDATION_ERROR', 'from: must not be in the future');
        return [{ type: 'WebhookEndpointReplayRequested', data: { endpointId, replayId: command.replayId, from: command.from, by, at } }];
    }
  },
};

export const webhookEndpointsStream = (companyId: string) => `webhookendpoints-${companyId}`;
export const companyIdOfWebhookEndpointsStream = (stream: string) => stream.slice('webhookendpoints-'.length);
