import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { webhookKind, webhookOutcome } from '../../domain/webhooks/events.js';
import { WEBHOOK_LOGS, type WebhookLogDoc } from '../../projections/webhookLogs/webhookLogsProjection.js';
import { authenticator, authOf } from '../authenticate.js';
import { notFound } from '../errors.js';
import type { PendingWrites } from '../pendingWrites.js';
import type { HttpServices } from '../services.js';
import { errorResponses, listQuery } from './schemas.js';

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

const logView = (d: WebhookLogDoc): z.infer<typeof logSchema> => ({
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

export function webhookLogRoutes(services: HttpServices, logWrites: PendingWrites): FastifyPluginAsyncZod {
  // Log entries are appended after the webhook is acknowledged: wait for this process's entries still being
  // written, then read everything stored so far.
  const catchUp = async () => {
    await logWrites.settled();
    await services.waitForProjections(await services.commands.eventStore.headPosition());
  };

  return async (app) => {
    app.addHook('onRequest', authenticator(services));
    app.get(
      '/api/webhook-logs',
      {
        schema: {
          tags: ['webhooks'],
          security: [{ bearer: [] }],
          description: 'Newest first, across all of the company\'s integrations unless integrationId is given; keyset pages (nextCursor).',
          querystring: listQuery.extend({ integrationId: z.coerce.number().int().positive().optional(), outcome: webhookOutcome.optional() }),
          response: { 200: z.object({ logs: z.array(logSchema), nextCursor: z.string().nullable() }), ...errorResponses },
        },
      },
      async (request) => {
        await catchUp();
        const { integrationId, outcome, limit, cursor } = request.query;
        const page = await services.readStore.find<WebhookLogDoc>(WEBHOOK_LOGS, {
          where: {
            companyId: authOf(request).companyId,
            ...(integrationId !== undefined ? { integrationId } : {}),
            ...(outcome ? { outcome } : {}),
          },
          orderBy: [{ field: 'receivedAt', direction: 'desc' }, { field: 'seq', direction: 'desc' }],
          limit,
          cursor,
        });
        return { logs: page.items.map(logView), nextCursor: page.nextCursor };
      },
    );

    app.get(
      '/api/webhook-logs/:id',
      {
        schema: {
          tags: ['webhooks'],
          security: [{ bearer: [] }],
          description: 'One delivery with what was kept of its payload (never a secret or a signature).',
          params: z.object({ id: z.string().max(64) }),
          response: { 200: z.object({ log: logSchema.extend({ payload: payloadSchema }) }), ...errorResponses },
        },
      },
      async (request) => {
        const id = request.params.id;
        if (!z.uuid().safeParse(id).success) throw notFound('Webhook log entry');
        await catchUp();
        const page = await services.readStore.find<WebhookLogDoc>(WEBHOOK_LOGS, { where: { companyId: authOf(request).companyId, logId: id }, limit: 1 });
        const doc = page.items[0];
        if (!doc) throw notFound('Webhook log entry');
        return { log: { ...logView(doc), payload: doc.payload ?? null } };
      },
    );
  };
}
