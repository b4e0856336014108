import { DEFAULT_CREDITS_LOW_THRESHOLD_MICROS, type WebhookEndpointEvent, type WebhookEndpointFields } from './events.js';

export interface WebhookEndpoint extends WebhookEndpointFields {
  id: string;
  /** Sealed. */
  secret: string;
  /** The secret a rotation replaced, still signing until `validUntil` (sealed). */
  previousSecret: { secret: string; validUntil: string } | null;
  /**
   * Secrets replaced before `previousSecret` whose grace had not ended when it was replaced, newest first (at most
   * EARLIER_SECRETS_KEPT): two rotations a moment apart must not cut short the grace of the secret the receiver
   * still holds. Absent on endpoints rotated at most once.
   */
  earlierSecrets?: { secret: string; validUntil: string }[];
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

/** Besides the current and the previous secret, at most this many earlier ones still in their grace sign a delivery. */
export const EARLIER_SECRETS_KEPT = 2;

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
      return update(event.data.endpointId, (e) => {
        const { secret, previousValidUntil, at } = event.data;
        const stillSigning = [e.previousSecret, ...(e.earlierSecrets ?? [])].filter((s): s is NonNullable<typeof s> => s !== null && s.validUntil > at);
        return { ...e, secret, previousSecret: { secret: e.secret, validUntil: previousValidUntil }, earlierSecrets: stillSigning.slice(0, EARLIER_SECRETS_KEPT), updatedAt: at };
      });
    case 'WebhookEndpointDisabled':
      return update(event.data.endpointId, (e) => ({ ...e, active: false, disabled: { reason: event.data.reason, at: event.data.at }, updatedAt: event.data.at }));
    case 'WebhookEndpointReplayRequested':
      return state;
    case 'CreditsLowThresholdSet':
      return { ...state, companyId: event.data.companyId, creditsLowThresholdMicros: event.data.thresholdMicros };
  }
}
