import { z } from 'zod';
import { webhookKind, webhookOutcome } from '../../domain/platformWebhooks/events.js';
import type { WebhookLogDoc } from '../../projections/platformWebhookLogs/webhookLogsProjection.js';
import { bearerSecurity as security, errorResponses, listQuery } from './schemas.js';

const logSchema = z.object({
  id: z.uuid(),
  integrationId: z.number().int(),
  receivedAt: z.string(),
  httpStatus: z.number().int(),
  outcome: webhookOutcome,
  kind: webhookKind,
  reason: z.string().nullable(),
  conversationId: z.string().nullable(),
  hasPayload: z.boolean(),
});
const payloadSchema = z
  .object({
    headers: z.record(z.string(), z.string()),
    body: z.string().describe('the JSON body with credential fields and known secrets replaced by "[redacted]"'),
    truncated: z.boolean(),
  })
  .nullable();

export const logView = (d: WebhookLogDoc): z.infer<typeof logSchema> => ({
  id: d.logId,
  integrationId: d.integrationId,
  receivedAt: d.receivedAt,
  httpStatus: d.httpStatus,
  outcome: d.outcome,
  kind: d.kind,
  reason: d.reason,
  conversationId: d.conversationId,
  hasPayload: d.payload !== undefined,
});

export const listWebhookLogsSchema = {
  tags: ['webhooks'],
  security,
  description: 'Newest first, across all of the company\'s integrations unless integrationId is given; keyset pages (nextCursor).',
  querystring: listQuery.extend({ integrationId: z.coerce.number().int().positive().optional(), outcome: webhookOutcome.optional() }),
  response: { 200: z.object({ logs: z.array(logSchema), nextCursor: z.string().nullable() }), ...errorResponses },
};

export const getWebhookLogSchema = {
  tags: ['webhooks'],
  security,
  description: 'One delivery with what was kept of its payload (never a secret or a signature).',
  params: z.object({ id: z.string().max(64) }),
  response: { 200: z.object({ log: logSchema.extend({ payload: payloadSchema }) }), ...errorResponses },
};
