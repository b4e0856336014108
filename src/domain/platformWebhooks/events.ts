import { z } from 'zod';
import { PAYLOAD_BODY_MAX_CHARS } from './payload.js';

export const webhookOutcome = z.enum(['processed', 'duplicate', 'ignored', 'rejected']);
export const webhookKind = z.enum(['message', 'status_event', 'other']);

/**
 * One entry per webhook POST to a known integration, except rejections before the signature verified beyond
 * their per-integration budget (counted, not logged: see http/rejectedWebhookLog). Never a secret or a
 * signature: the payload is kept only as redactPayload leaves it (harmless headers, the JSON body with
 * credentials replaced, cut at 8 KiB, or at 256 characters when the signature did not verify).
 */
export const webhookLogEvents = {
  WebhookDeliveryLogged: z.object({
    logId: z.uuid(),
    integrationId: z.number().int().positive(),
    companyId: z.uuid(),
    receivedAt: z.iso.datetime(),
    httpStatus: z.number().int(),
    outcome: webhookOutcome,
    kind: webhookKind,
    reason: z.string().max(500).nullable(),
    conversationId: z.uuid().nullable(),
    /** Optional: entries logged before payloads were kept have none. */
    payload: z
      .object({
        headers: z.record(z.string().max(64), z.string().max(300)),
        body: z.string().max(PAYLOAD_BODY_MAX_CHARS),
        truncated: z.boolean(),
      })
      .optional(),
  }),
};
export type WebhookLogEntry = z.infer<typeof webhookLogEvents.WebhookDeliveryLogged>;
export const webhookLogStream = (integrationId: number) => `webhooklog-${integrationId}`;
