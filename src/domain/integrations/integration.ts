import { z } from 'zod';
import type { Decider } from '../decider.js';
import type { Lifecycle } from '../lifecycle.js';
import { DomainError } from '../errors.js';

export const connectorType = z.enum(['msgplatform', 'webchat']);
export type ConnectorType = z.infer<typeof connectorType>;

/** Longest web-chat greeting, in characters. */
export const WEBCHAT_GREETING_MAX_LENGTH = 500;

/** Secrets are stored sealed (AES-256-GCM, `v1:` envelope) in events; never in plain text. */
const sealed = z.string().startsWith('v1:').max(4096);

const settings = z.object({
  name: z.string().min(1).max(200),
  apiUrl: z.string().max(2048).nullable(),
  webhookSecret: sealed.nullable(),
  apiToken: sealed.nullable(),
  active: z.boolean(),
  agentId: z.uuid().nullable(),
  allowedOrigins: z.array(z.string().max(300)).max(50),
  /** Web chat: the first message a visitor sees. Optional: integrations created before it have none. */
  greeting: z.string().max(WEBCHAT_GREETING_MAX_LENGTH).nullable().optional(),
});
export type IntegrationSettings = z.infer<typeof settings>;

export const integrationEvents = {
  IntegrationCreated: settings.extend({
    integrationId: z.number().int().positive(),
    companyId: z.uuid(),
    connectorType,
    at: z.iso.datetime(),
  }),
  IntegrationUpdated: z.object({ changes: settings.partial(), at: z.iso.datetime() }),
  IntegrationDeleted: z.object({ at: z.iso.datetime() }),
  // Looser than platformIdSchema on purpose: ids stored while the platform client accepted any string or number
  // must still read (events are validated on read).
  WebhookRegistered: z.object({ platformWebhookId: z.union([z.string(), z.number()]).nullable(), url: z.string(), at: z.iso.datetime() }),
};
type Events = typeof integrationEvents;
export type IntegrationEvent = { [K in keyof Events]: { type: K; data: z.infer<Events[K]> } }[keyof Events];

export type IntegrationState =
  | { status: 'none' }
  | ({
      status: Exclude<Lifecycle, 'none'>;
      integrationId: number;
      companyId: string;
      connectorType: ConnectorType;
      createdAt: string;
      updatedAt: string;
      webhookRegisteredAt: string | null;
      registeredUrl: string | null;
    } & IntegrationSettings);

export type IntegrationCommand =
  | ({ type: 'CreateIntegration'; integrationId: number; companyId: string; connectorType: ConnectorType; now: string } & IntegrationSettings)
  | { type: 'UpdateIntegration'; companyId: string; changes: Partial<IntegrationSettings>; now: string }
  | { type: 'DeleteIntegration'; companyId: string; now: string }
  | { type: 'RecordWebhookRegistration'; companyId: string; platformWebhookId: string | number | null; url: string; now: string };

const notFound = () => new DomainError('NOT_FOUND', 'Integration not found');

export const integrationDecider: Decider<IntegrationCommand, IntegrationEvent, IntegrationState> = {
  initialState: { status: 'none' },
  evolve(state, event) {
    switch (event.type) {
      case 'IntegrationCreated': {
        const { at, ...rest } = event.data;
        return { status: 'active', ...rest, createdAt: at, updatedAt: at, webhookRegisteredAt: null, registeredUrl: null };
      }
      case 'IntegrationUpdated':
        if (state.status === 'none') return state;
        // A new platform address means the old registration says nothing about the new one.
        return {
          ...state,
          ...event.data.changes,
          updatedAt: event.data.at,
          ...(event.data.changes.apiUrl !== undefined && event.data.changes.apiUrl !== state.apiUrl ? { webhookRegisteredAt: null, registeredUrl: null } : {}),
        };
      case 'IntegrationDeleted':
        return state.status === 'none' ? state : { ...state, status: 'deleted', updatedAt: event.data.at };
      case 'WebhookRegistered':
        return state.status === 'none' ? state : { ...state, webhookRegisteredAt: event.data.at, registeredUrl: event.data.url };
    }
  },
  decide(command, state) {
    if (command.type === 'CreateIntegration') {
      if (state.status !== 'none') throw new DomainError('CONFLICT', 'Integration already exists');
      const { type: _t, now, ...data } = command;
      return [{ type: 'IntegrationCreated', data: { ...data, at: now } }];
    }
    // Another company's integration is indistinguishable from a missing one.
    if (state.status !== 'active' || state.companyId !== command.companyId) throw notFound();
    switch (command.type) {
      case 'UpdateIntegration': {
        const changes = Object.fromEntries(
          Object.entries(command.changes).filter(([k, v]) => v !== undefined && JSON.stringify(v) !== JSON.stringify(state[k as keyof typeof state])),
        );
        return Object.keys(changes).length === 0 ? [] : [{ type: 'IntegrationUpdated', data: { changes, at: command.now } }];
      }
      case 'DeleteIntegration':
        return [{ type: 'IntegrationDeleted', data: { at: command.now } }];
      case 'RecordWebhookRegistration':
        return [{ type: 'WebhookRegistered', data: { platformWebhookId: command.platformWebhookId, url: command.url, at: command.now } }];
    }
  },
};

export const integrationStream = (integrationId: number) => `integration-${integrationId}`;
