import { webhookEndpointsDecider, webhookEndpointsStream } from '../../domain/webhookEndpoints/decider.js';
import type { WebhookEndpoint, WebhookEndpointsState } from '../../domain/webhookEndpoints/state.js';
import type { EventStore } from '../../ports/eventStore.js';
import { loadState } from '../handleCommand.js';

/** The company's endpoints and settings as stored now (the stream is the company's own: no other company's endpoint is reachable). */
export async function loadWebhookEndpoints(eventStore: EventStore, companyId: string): Promise<WebhookEndpointsState> {
  return (await loadState(eventStore, webhookEndpointsStream(companyId), webhookEndpointsDecider)).state;
}

/** One endpoint of the company's, or null. */
export async function loadWebhookEndpoint(eventStore: EventStore, companyId: string, endpointId: string): Promise<WebhookEndpoint | null> {
  return (await loadWebhookEndpoints(eventStore, companyId)).endpoints.get(endpointId) ?? null;
}
