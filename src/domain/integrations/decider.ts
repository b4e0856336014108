import type { Decider } from '../decider.js';
import { DomainError } from '../errors.js';
import { refuseSecretToNewDestination } from '../secretDestinations.js';
import type { ConnectorType, IntegrationEvent, IntegrationSettings } from './events.js';
import { evolveIntegration, initialIntegrationState, type IntegrationState } from './state.js';

export type IntegrationCommand =
  | ({ type: 'CreateIntegration'; integrationId: number; companyId: string; connectorType: ConnectorType; now: string } & IntegrationSettings)
  | { type: 'UpdateIntegration'; companyId: string; changes: Partial<IntegrationSettings>; now: string }
  | { type: 'DeleteIntegration'; companyId: string; now: string }
  | { type: 'RecordWebhookRegistration'; companyId: string; platformWebhookId: string | number | null; url: string; now: string };

const notFound = () => new DomainError('NOT_FOUND', 'Integration not found');

export const integrationDecider: Decider<IntegrationCommand, IntegrationEvent, IntegrationState> = {
  initialState: initialIntegrationState,
  evolve: evolveIntegration,
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
        // The platform token is sent to apiUrl (replies, webhook registration): it does not follow an edited address.
        refuseSecretToNewDestination('apiToken', 'platform API token', state.apiUrl, command.changes.apiUrl, state.apiToken !== null && command.changes.apiToken === undefined);
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
