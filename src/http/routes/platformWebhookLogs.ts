import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { findCompanyWebhookLog, listWebhookLogs } from '../../projections/platformWebhookLogs/queries.js';
import { authenticator, authOf } from '../authenticate.js';
import { notFound } from '../errors.js';
import type { PendingWrites } from '../pendingWrites.js';
import type { HttpServices } from '../services.js';
import { getWebhookLogSchema, listWebhookLogsSchema, logView } from './platformWebhookLogs.schemas.js';

/** GET /api/webhook-logs and GET /api/webhook-logs/:id: the company's webhook deliveries. */
export function platformWebhookLogRoutes(services: HttpServices, logWrites: PendingWrites): FastifyPluginAsyncZod {
  // Log entries are appended after the webhook is acknowledged: wait for this process's entries still being
  // written, then read everything stored so far.
  const catchUp = async () => {
    await logWrites.settled();
    await services.waitForProjections(await services.commands.eventStore.headPosition());
  };

  return async (app) => {
    app.addHook('onRequest', authenticator(services));
    app.get('/api/webhook-logs', { schema: listWebhookLogsSchema }, async (request) => {
      await catchUp();
      const { integrationId, outcome, limit, cursor } = request.query;
      const page = await listWebhookLogs(services.readStore, authOf(request).companyId, { integrationId, outcome }, { limit, cursor });
      return { logs: page.items.map(logView), nextCursor: page.nextCursor };
    });

    app.get('/api/webhook-logs/:id', { schema: getWebhookLogSchema }, async (request) => {
      const id = request.params.id;
      if (!z.uuid().safeParse(id).success) throw notFound('Webhook log entry');
      await catchUp();
      const doc = await findCompanyWebhookLog(services.readStore, authOf(request).companyId, id);
      if (!doc) throw notFound('Webhook log entry');
      return { log: { ...logView(doc), payload: doc.payload ?? null } };
    });
  };
}
