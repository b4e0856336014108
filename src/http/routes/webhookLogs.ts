import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { webhookKind, webhookOutcome } from '../../domain/webhooks/webhookLog.js';
import { WEBHOOK_LOGS, type WebhookLogDoc } from '../../projections/webhookLogs/webhookLogsProjection.js';
import { authenticator, authOf } from '../authenticate.js';
import type { HttpServices } from '../services.js';
import { errorResponses, listQuery } from './schemas.js';

export function webhookLogRoutes(services: HttpServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.addHook('onRequest', authenticator(services));
    app.get(
      '/api/webhook-logs',
      {
        schema: {
          tags: ['webhooks'],
          security: [{ bearer: [] }],
          querystring: listQuery.extend({ integrationId: z.coerce.number().int().positive().optional(), outcome: webhookOutcome.optional() }),
          response: {
            200: z.object({
              logs: z.array(
                z.object({
                  id: z.uuid(),
                  integrationId: z.number().int(),
                  receivedAt: z.string(),
                  httpStatus: z.number().int(),
                  outcome: webhookOutcome,
                  kind: webhookKind,
                  reason: z.string().nullable(),
                  conversationId: z.string().nullable(),
                }),
              ),
              nextCursor: z.string().nullable(),
            }),
            ...errorResponses,
          },
        },
      },
      async (request) => {
        // Log entries are appended after the webhook is acknowledged: read everything stored so far.
        await services.waitForProjections(await services.commands.eventStore.headPosition());
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
        return {
          logs: page.items.map((d) => ({
            id: d.logId,
            integrationId: d.integrationId,
            receivedAt: d.receivedAt,
            httpStatus: d.httpStatus,
            outcome: d.outcome,
            kind: d.kind,
            reason: d.reason,
            conversationId: d.conversationId,
          })),
          nextCursor: page.nextCursor,
        };
      },
    );
  };
}
