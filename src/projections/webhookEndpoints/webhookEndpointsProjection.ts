import { webhookEndpointEvents } from '../../domain/webhookEndpoints/events.js';
import type { Doc } from '../../ports/readStore.js';
import { defineProjection } from '../projection.js';

/** A company's outbound webhook endpoints, oldest first; never their secrets. Deleted ones are removed. */
export interface WebhookEndpointDoc extends Doc {
  companyId: string;
  url: string;
  eventTypes: string[];
  active: boolean;
  description: string;
  disabled: { reason: string; at: string } | null;
  previousSecretValidUntil: string | null;
  /** The latest replay asked for (the delivery worker applies it once). */
  replay?: { replayId: string; from: string } | null;
  createdAt: string;
  updatedAt: string;
}

export const WEBHOOK_ENDPOINTS = 'webhook_endpoints';

export const webhookEndpointsProjection = defineProjection(webhookEndpointEvents, {
  name: 'webhookEndpoints',
  collections: [{ name: WEBHOOK_ENDPOINTS, indexes: [['companyId', 'createdAt'], 'active'] }],
  eventTypes: ['WebhookEndpointCreated', 'WebhookEndpointUpdated', 'WebhookEndpointDeleted', 'WebhookEndpointSecretRotated', 'WebhookEndpointDisabled', 'WebhookEndpointReplayRequested'],
  async apply(event, ctx) {
    if (event.type === 'WebhookEndpointCreated') {
      const d = event.data;
      ctx.put(WEBHOOK_ENDPOINTS, {
        id: d.endpointId,
        companyId: d.companyId,
        url: d.url,
        eventTypes: d.eventTypes,
        active: d.active,
        description: d.description,
        disabled: null,
        previousSecretValidUntil: null,
        createdAt: d.at,
        updatedAt: d.at,
      } satisfies WebhookEndpointDoc);
      return;
    }
    const doc = await ctx.get<WebhookEndpointDoc>(WEBHOOK_ENDPOINTS, event.data.endpointId);
    if (!doc) return;
    const at = event.data.at;
    switch (event.type) {
      case 'WebhookEndpointUpdated':
        return ctx.put(WEBHOOK_ENDPOINTS, { ...doc, ...event.data.changes, disabled: event.data.changes.active ? null : doc.disabled, updatedAt: at });
      case 'WebhookEndpointDeleted':
        return ctx.delete(WEBHOOK_ENDPOINTS, doc.id);
      case 'WebhookEndpointSecretRotated':
        return ctx.put(WEBHOOK_ENDPOINTS, { ...doc, previousSecretValidUntil: event.data.previousValidUntil, updatedAt: at });
      case 'WebhookEndpointDisabled':
        return ctx.put(WEBHOOK_ENDPOINTS, { ...doc, active: false, disabled: { reason: event.data.reason, at }, updatedAt: at });
      case 'WebhookEndpointReplayRequested':
        return ctx.put(WEBHOOK_ENDPOINTS, { ...doc, replay: { replayId: event.data.replayId, from: event.data.from } });
    }
  },
});
