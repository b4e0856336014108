import { z } from 'zod';
import { publicEventTypes } from '../../domain/publicEvents/catalog.js';
import { WEBHOOK_ENDPOINT_LIMITS } from '../../domain/webhookEndpoints/events.js';
import type { WebhookEndpoint } from '../../domain/webhookEndpoints/state.js';
import type { WebhookEndpointDoc } from '../../projections/webhookEndpoints/webhookEndpointsProjection.js';
import { bearerSecurity as security, errorBody, errorResponses, listQuery } from './schemas.js';

export const webhookEndpointSchema = z.object({
  id: z.uuid(),
  url: z.string(),
  eventTypes: z.array(z.string()),
  active: z.boolean(),
  description: z.string(),
  /** Why and when the service switched it off after persistent failure; null while it is not. */
  disabled: z.object({ reason: z.string(), at: z.string() }).nullable(),
  /** After a rotation: until when the previous secret still signs too. */
  previousSecretValidUntil: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export const webhookEndpointView = (e: WebhookEndpoint | WebhookEndpointDoc): z.infer<typeof webhookEndpointSchema> => ({
  id: e.id,
  url: e.url,
  eventTypes: e.eventTypes,
  active: e.active,
  description: e.description,
  disabled: e.disabled,
  previousSecretValidUntil: 'previousSecret' in e ? ((e as WebhookEndpoint).previousSecret?.validUntil ?? null) : (e as WebhookEndpointDoc).previousSecretValidUntil,
  createdAt: e.createdAt,
  updatedAt: e.updatedAt,
});

const writable = {
  url: z.url().max(WEBHOOK_ENDPOINT_LIMITS.url),
  eventTypes: z.array(z.string().min(1).max(100)).min(1).max(WEBHOOK_ENDPOINT_LIMITS.eventTypes),
  active: z.boolean(),
  description: z.string().trim().max(WEBHOOK_ENDPOINT_LIMITS.description),
};

const tags = ['webhook-endpoints'];
const params = z.object({ id: z.string().max(64) });
const one = z.object({ endpoint: webhookEndpointSchema });
const withSecret = z.object({ endpoint: webhookEndpointSchema, secret: z.string() });

export const listWebhookEndpointsSchema = {
  tags,
  security,
  description: "The company's outbound webhook endpoints, oldest first (secrets are never shown again).",
  querystring: listQuery,
  response: { 200: z.object({ endpoints: z.array(webhookEndpointSchema), nextCursor: z.string().nullable() }), ...errorResponses },
};

export const createWebhookEndpointSchema = {
  tags,
  security,
  description:
    `Adds an endpoint. eventTypes: public event types (${publicEventTypes.join(', ')}) or "*" for all. ` +
    `The answer holds the signing secret (whsec_…), shown this once. At most ${WEBHOOK_ENDPOINT_LIMITS.count} per company (409 QUOTA_EXCEEDED). Owners and admins.`,
  body: z.strictObject({ url: writable.url, eventTypes: writable.eventTypes, active: writable.active.default(true), description: writable.description.default('') }),
  response: { 201: withSecret, 409: errorBody, ...errorResponses },
};

export const getWebhookEndpointSchema = { tags, security, params, response: { 200: one, ...errorResponses } };

export const updateWebhookEndpointSchema = {
  tags,
  security,
  params,
  description: 'Changes an endpoint; `active: true` turns on one the service disabled (delivery resumes where it stopped).',
  body: z.strictObject({ url: writable.url.optional(), eventTypes: writable.eventTypes.optional(), active: writable.active.optional(), description: writable.description.optional() }),
  response: { 200: one, ...errorResponses },
};

export const deleteWebhookEndpointSchema = { tags, security, params, response: { 204: z.null(), ...errorResponses } };

export const rotateWebhookEndpointSecretSchema = {
  tags,
  security,
  params,
  description: 'A new signing secret, shown this once. The previous one keeps signing for 24 hours: deliveries carry both signatures meanwhile.',
  response: { 200: withSecret, ...errorResponses },
};

export const replayWebhookEndpointSchema = {
  tags,
  security,
  params,
  description: 'Delivers again, in order, every public event the endpoint subscribes to from `from` (ISO 8601) on.',
  body: z.strictObject({ from: z.iso.datetime({ offset: true }) }),
  response: { 202: z.object({ replay: z.object({ endpointId: z.uuid(), from: z.string() }) }), ...errorResponses },
};

const settings = z.object({ creditsLowThresholdMicros: z.number().int().min(0) });
export const getWebhookSettingsSchema = { tags, security, response: { 200: z.object({ settings }), ...errorResponses } };
export const putWebhookSettingsSchema = {
  tags,
  security,
  description: 'creditsLowThresholdMicros: below this balance (micro-dollars) the company gets credits.low.',
  body: z.strictObject({ creditsLowThresholdMicros: z.number().int().min(0).max(1_000_000_000_000) }),
  response: { 200: z.object({ settings }), ...errorResponses },
};
