import { webhookDeliveryEvents } from '../../domain/webhookDeliveries/events.js';
import type { Doc } from '../../ports/readStore.js';
import { defineProjection } from '../projection.js';

/** One delivery of one event to one endpoint: its attempts (the newest RECENT_ATTEMPTS_KEPT) and where it stands. */
export interface WebhookDeliveryDoc extends Doc {
  companyId: string;
  endpointId: string;
  deliveryId: string;
  eventId: string;
  eventType: string;
  status: 'delivered' | 'retrying' | 'failed';
  attempts: number;
  recentAttempts: { attempt: number; trigger: string; ok: boolean; httpStatus: number | null; latencyMs: number; response: string; at: string }[];
  nextRetryAt: string | null;
  createdAt: string;
  updatedAt: string;
  /** Position of the latest attempt: the log lists the most recently attempted first. */
  seq: number;
}

export const WEBHOOK_DELIVERIES = 'webhook_deliveries';
export const RECENT_ATTEMPTS_KEPT = 10;

export const webhookDeliveriesProjection = defineProjection(webhookDeliveryEvents, {
  name: 'webhookDeliveries',
  collections: [{ name: WEBHOOK_DELIVERIES, indexes: [['companyId', 'endpointId', 'seq']] }],
  eventTypes: ['WebhookDeliveryAttempted'],
  async apply(event, ctx) {
    const d = event.data;
    const id = `${d.endpointId}:${d.deliveryId}`;
    const doc = await ctx.get<WebhookDeliveryDoc>(WEBHOOK_DELIVERIES, id);
    const attempt = { attempt: d.attempt, trigger: d.trigger, ok: d.ok, httpStatus: d.httpStatus, latencyMs: d.latencyMs, response: d.response, at: d.at };
    ctx.put(WEBHOOK_DELIVERIES, {
      id,
      companyId: d.companyId,
      endpointId: d.endpointId,
      deliveryId: d.deliveryId,
      eventId: d.eventId,
      eventType: d.eventType,
      status: d.ok ? 'delivered' : d.nextRetryAt ? 'retrying' : 'failed',
      attempts: (doc?.attempts ?? 0) + 1,
      recentAttempts: [attempt, ...(doc?.recentAttempts ?? [])].slice(0, RECENT_ATTEMPTS_KEPT),
      nextRetryAt: d.nextRetryAt,
      createdAt: doc?.createdAt ?? d.at,
      updatedAt: d.at,
      seq: Number(event.position),
    } satisfies WebhookDeliveryDoc);
  },
});
