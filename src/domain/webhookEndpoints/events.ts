import { z } from 'zod';

/**
 * A company's outbound webhook endpoints: where the service tells the company's own systems what happened.
 * One stream per company (`webhookendpoints-<companyId>`) holds them all, so the count is capped by one
 * decision; the set is small (WEBHOOK_ENDPOINT_LIMITS.count) and edited by hand.
 */

export const WEBHOOK_ENDPOINT_LIMITS = { count: 20, url: 2048, description: 500, eventTypes: 50 } as const;
/** How long the previous secret still signs after a rotation (Standard Webhooks: several signatures at once). */
export const SECRET_ROTATION_GRACE_MS = 24 * 60 * 60 * 1000;
/** What the company's `credits.low` threshold is until it sets one: $1.00. */
export const DEFAULT_CREDITS_LOW_THRESHOLD_MICROS = 1_000_000;

const at = z.iso.datetime();
/** Secrets are stored sealed (AES-256-GCM, `v1:` envelope) in events; never in plain text. */
const sealed = z.string().min(1).max(1000);

export const webhookEndpointFields = z.object({
  url: z.string().min(1).max(WEBHOOK_ENDPOINT_LIMITS.url),
  /** Public event types (catalog names) it receives; `*` for all of them. */
  eventTypes: z.array(z.string().min(1).max(100)).min(1).max(WEBHOOK_ENDPOINT_LIMITS.eventTypes),
  active: z.boolean(),
  description: z.string().max(WEBHOOK_ENDPOINT_LIMITS.description),
});
export type WebhookEndpointFields = z.infer<typeof webhookEndpointFields>;

export const webhookEndpointEvents = {
  WebhookEndpointCreated: webhookEndpointFields.extend({ endpointId: z.uuid(), companyId: z.uuid(), secret: sealed, by: z.string().max(100), at }),
  WebhookEndpointUpdated: z.object({ endpointId: z.uuid(), changes: webhookEndpointFields.partial(), by: z.string().max(100), at }),
  WebhookEndpointDeleted: z.object({ endpointId: z.uuid(), by: z.string().max(100), at }),
  /** A new signing secret; the one it replaces keeps signing until `previousValidUntil`. */
  WebhookEndpointSecretRotated: z.object({ endpointId: z.uuid(), secret: sealed, previousValidUntil: at, by: z.string().max(100), at }),
  /** Deliveries kept failing for the whole retry schedule: the endpoint is switched off until someone turns it on. */
  WebhookEndpointDisabled: z.object({ endpointId: z.uuid(), reason: z.string().max(500), at }),
  /** Every matching public event since `from` is to be delivered again, in order. */
  WebhookEndpointReplayRequested: z.object({ endpointId: z.uuid(), replayId: z.uuid(), from: at, by: z.string().max(100), at }),
  /** Below this balance the company's endpoints get `credits.low`. */
  CreditsLowThresholdSet: z.object({ companyId: z.uuid(), thresholdMicros: z.number().int().min(0), by: z.string().max(100), at }),
};
type Events = typeof webhookEndpointEvents;
export type WebhookEndpointEvent = { [K in keyof Events]: { type: K; data: z.infer<Events[K]>; id?: string } }[keyof Events];
