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

export const initialIntegrationState: IntegrationState = { status: 'none' };

export function evolveIntegration(state: IntegrationState, event: IntegrationEvent): IntegrationState {
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
}
