import { z } from 'zod';

export const webhookOutcome = z.enum(['processed', 'duplicate', 'ignored', 'rejected']);
export const webhookKind = z.enum(['message', 'status_event', 'other']);

/** One entry per webhook POST to a known integration. Never a secret, a signature or a body. */
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
  }),
};
export type WebhookLogEntry = z.infer<typeof webhookLogEvents.WebhookDeliveryLogged>;
export const webhookLogStream = (integrationId: number) => `webhooklog-${integrationId}`;
