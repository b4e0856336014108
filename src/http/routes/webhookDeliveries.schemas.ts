import { z } from 'zod';
import type { WebhookDeliveryDoc } from '../../projections/webhookDeliveries/webhookDeliveriesProjection.js';
import { bearerSecurity as security, errorResponses, listQuery } from './schemas.js';

const attemptSchema = z.object({
  attempt: z.number().int(),
  trigger: z.enum(['delivery', 'resend', 'test']),
  ok: z.boolean(),
  httpStatus: z.number().int().nullable(),
  latencyMs: z.number().int(),
  /** The first bytes of the receiver's answer, or what went wrong. */
  response: z.string(),
  at: z.string(),
});
export const webhookDeliverySchema = z.object({
  id: z.string(),
  eventId: z.string(),
  eventType: z.string(),
  status: z.enum(['delivered', 'retrying', 'failed']),
  attempts: z.number().int(),
  recentAttempts: z.array(attemptSchema),
  nextRetryAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export const webhookDeliveryView = (d: WebhookDeliveryDoc): z.infer<typeof webhookDeliverySchema> => ({
  id: d.deliveryId,
  eventId: d.eventId,
  eventType: d.eventType,
  status: d.status,
  attempts: d.attempts,
  recentAttempts: d.recentAttempts as z.infer<typeof attemptSchema>[],
  nextRetryAt: d.nextRetryAt,
  createdAt: d.createdAt,
  updatedAt: d.updatedAt,
});

const tags = ['webhook-endpoints'];
const params = z.object({ id: z.string().max(64) });
const attemptAnswer = z.object({ attempt: attemptSchema.extend({ deliveryId: z.string(), eventId: z.string() }) });

export const listWebhookDeliveriesSchema = {
  tags,
  security,
  params,
  description: "An endpoint's delivery log, the most recently attempted first: status, attempts, latency, the first bytes of each answer, the next retry.",
  querystring: listQuery,
  response: { 200: z.object({ deliveries: z.array(webhookDeliverySchema), nextCursor: z.string().nullable() }), ...errorResponses },
};

export const sendTestEventSchema = {
  tags,
  security,
  params,
  description: 'Sends a signed `webhook.test` event to the endpoint now and answers with how it went.',
  response: { 200: attemptAnswer, ...errorResponses },
};

export const resendWebhookDeliverySchema = {
  tags,
  security,
  params: z.object({ id: z.string().max(64), deliveryId: z.string().max(100) }),
  description: 'Sends one delivery again now, with the same webhook-id (outside the in-order queue; it does not move it).',
  response: { 200: attemptAnswer, ...errorResponses },
};
