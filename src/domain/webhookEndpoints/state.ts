import { DEFAULT_CREDITS_LOW_THRESHOLD_MICROS, type WebhookEndpointEvent, type WebhookEndpointFields } from './events.js';

export interface WebhookEndpoint extends WebhookEndpointFields {
  id: string;
  /** Sealed. */
  secret: string;
  /** The secret a rotation replaced, still signing until `validUntil` (sealed). */
  previousSecret: { secret: string; validUntil: string } | null;
  /** Set when the delivery worker switched it off after persistent failure; cleared when it is turned on again. */
  disabled: { reason: string; at: string } | null;
  createdAt: string;
  updatedAt: string;
}
export interface WebhookEndpointsState {
  companyId: string | null;
  endpoints: Map<string, WebhookEndpoint>;
  creditsLowThresholdMicros: number;
}

export const initialWebhookEndpointsState: WebhookEndpointsState = { companyId: null, endpoints: new Map(), creditsLowThresholdMicros: DEFAULT_CREDITS_LOW_THRESHOLD_MICROS };

export function evolveWebhookEndpoints(state: WebhookEndpointsState, event: WebhookEndpointEvent): WebhookEndpointsState {
  const endpoints = new Map(state.endpoints);
  const update = (id: string, change: (e: WebhookEndpoint) => WebhookEndpoint) => {
    const known = endpoints.get(id);
    if (known) endpoints.set(id, change(known));
    return { ...state, endpoints };
  };
  switch (event.type) {
    case 'WebhookEndpointCreated': {
      const { endpointId, companyId, by: _by, at, ...rest } = event.data;
      endpoints.set(endpointId, { id: endpointId, ...rest, previousSecret: null, disabled: null, createdAt: at, updatedAt: at });
      return { ...state, companyId, endpoints };
    }
    case 'WebhookEndpointUpdated':
      return update(event.data.endpointId, (e) => ({ ...e, ...event.data.changes, disabled: event.data.changes.active ? null : e.disabled, updatedAt: event.data.at }));
    case 'WebhookEndpointDeleted':
      endpoints.delete(event.data.endpointId);
      return { ...state, endpoints };
    case 'WebhookEndpointSecretRotated':
      return update(event.data.endpointId, (e) => ({ ...e, secret: event.data.secret, previousSecret: { secret: e.secret, validUntil: event.data.previousValidUntil }, updatedAt: event.data.at }));
    case 'WebhookEndpointDisabled':
      return update(event.data.endpointId, (e) => ({ ...e, active: false, disabled: { reason: event.data.reason, at: event.data.at }, updatedAt: event.data.at }));
    case 'WebhookEndpointReplayRequested':
      return state;
    case 'CreditsLowThresholdSet':
      return { ...state, companyId: event.data.companyId, creditsLowThresholdMicros: event.data.thresholdMicros };
  }
}
