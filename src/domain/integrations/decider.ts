import type { Decider } from '../decider.js';
import { DomainError } from '../errors.js';
import type { Lifecycle } from '../lifecycle.js';
import type { ConnectorType, IntegrationEvent, IntegrationSettings } from './events.js';

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
