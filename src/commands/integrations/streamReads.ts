import { integrationDecider, integrationStream } from '../../domain/integrations/decider.js';
import { type IntegrationState } from '../../domain/integrations/state.js';
import { isActive, type Active } from '../../domain/lifecycle.js';
import type { EventStore } from '../../ports/eventStore.js';
import { loadState } from '../handleCommand.js';

/**
 * Queries on one integration, read from its stream (strongly consistent): a change or delete applies to the
 * very next request. Every route, command and worker that checks an integration reads it through these, so
 * "exists" means one thing everywhere: created and not deleted (whether it is `active` is the caller's rule).
 */
export type LiveIntegration = Active<IntegrationState>;
export type WebchatIntegration = LiveIntegration & { connectorType: 'webchat' };

/** The integration, or null when it was never created or is deleted. */
export async function loadIntegration(eventStore: EventStore, integrationId: number): Promise<LiveIntegration | null> {
  const { state } = await loadState(eventStore, integrationStream(integrationId), integrationDecider);
  return isActive(state) ? state : null;
}

/** The integration when it belongs to `companyId`: another company's integration is answered like a missing one. */
export async function loadCompanyIntegration(eventStore: EventStore, companyId: string, integrationId: number): Promise<LiveIntegration | null> {
  const integration = await loadIntegration(eventStore, integrationId);
  return integration?.companyId === companyId ? integration : null;
}

/** The integration when it is a web chat one (the widget's WebSocket serves no other kind). */
export async function loadWebchatIntegration(eventStore: EventStore, integrationId: number): Promise<WebchatIntegration | null> {
  const integration = await loadIntegration(eventStore, integrationId);
  return integration !== null && isWebchat(integration) ? integration : null;
}

const isWebchat = (integration: LiveIntegration): integration is WebchatIntegration => integration.connectorType === 'webchat';
