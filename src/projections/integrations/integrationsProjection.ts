import { integrationEvents, type CsatSettings, type IdentityVerification } from '../../domain/integrations/events.js';
import type { Doc } from '../../ports/readStore.js';
import { defineProjection } from '../projection.js';

/** The dashboard's integration list. Secrets are reduced to has* flags: no ciphertext leaves the event store. */
export interface IntegrationDoc extends Doc {
  integrationId: number;
  companyId: string;
  name: string;
  connectorType: 'msgplatform' | 'webchat';
  apiUrl: string | null;
  active: boolean;
  agentId: string | null;
  hasWebhookSecret: boolean;
  hasApiToken: boolean;
  webhookRegisteredAt: string | null;
  allowedOrigins: string[];
  /** Web chat's first message to a visitor; null when none. */
  greeting: string | null;
  /** Absent on integrations created before the setting (read as DEFAULT_CSAT_SETTINGS). */
  csat?: CsatSettings;
  /** Web chat identity verification: whether a secret is set (never the secret), and the mode. Absent on older documents: none, off. */
  hasIdentitySecret?: boolean;
  identityVerification?: IdentityVerification;
  /** Web chat: the widget asks for a name and email first. Absent on older documents: off. */
  prechatForm?: boolean;
  createdAt: string;
  updatedAt: string;
}

export const INTEGRATIONS = 'integrations';

export const integrationsProjection = defineProjection(integrationEvents, {
  name: 'integrations',
  collections: [{ name: INTEGRATIONS, indexes: [['companyId', 'integrationId'], ['companyId', 'agentId']] }],
  eventTypes: ['IntegrationCreated', 'IntegrationUpdated', 'IntegrationDeleted', 'WebhookRegistered'],
  async apply(event, ctx) {
    const id = event.stream.slice('integration-'.length);
    if (event.type === 'IntegrationCreated') {
      const d = event.data;
      ctx.put(INTEGRATIONS, {
        id,
        integrationId: d.integrationId,
        companyId: d.companyId,
        name: d.name,
        connectorType: d.connectorType,
        apiUrl: d.apiUrl,
        active: d.active,
        agentId: d.agentId,
        hasWebhookSecret: d.webhookSecret !== null,
        hasApiToken: d.apiToken !== null,
        webhookRegisteredAt: null,
        allowedOrigins: d.allowedOrigins,
        greeting: d.greeting ?? null,
        ...(d.csat ? { csat: d.csat } : {}),
        hasIdentitySecret: Boolean(d.identitySecret),
        identityVerification: d.identityVerification ?? 'off',
        prechatForm: d.prechatForm ?? false,
        createdAt: d.at,
        updatedAt: d.at,
      } satisfies IntegrationDoc);
      return;
    }
    const doc = await ctx.get<IntegrationDoc>(INTEGRATIONS, id);
    if (!doc) return;
    switch (event.type) {
      case 'IntegrationUpdated': {
        const { webhookSecret, apiToken, identitySecret, ...plain } = event.data.changes;
        const apiUrlChanged = plain.apiUrl !== undefined && plain.apiUrl !== doc.apiUrl;
        ctx.put(INTEGRATIONS, {
          ...doc,
          ...plain,
          ...(webhookSecret !== undefined ? { hasWebhookSecret: webhookSecret !== null } : {}),
          ...(apiToken !== undefined ? { hasApiToken: apiToken !== null } : {}),
          ...(identitySecret !== undefined ? { hasIdentitySecret: identitySecret !== null } : {}),
          ...(apiUrlChanged ? { webhookRegisteredAt: null } : {}),
          updatedAt: event.data.at,
        });
        return;
      }
      case 'IntegrationDeleted':
        ctx.delete(INTEGRATIONS, id);
        return;
      case 'WebhookRegistered':
        ctx.put(INTEGRATIONS, { ...doc, webhookRegisteredAt: event.data.at });
    }
  },
});
