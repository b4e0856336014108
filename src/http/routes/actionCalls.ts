import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { actionAnalytics, getActionCall, listActionCalls } from '../../projections/actionCalls/queries.js';
import { analyticsTimezone } from '../../projections/analytics/queries.js';
import { authenticator, authOf } from '../authenticate.js';
import { notFound } from '../errors.js';
import type { HttpServices } from '../services.js';
import { actionAnalyticsSchema, actionCallView, getActionCallSchema, listActionCallsSchema } from './actionCalls.schemas.js';
import { checkQuery, rangeOf } from './analytics.js';

/** The action log (GET /api/action-calls, /api/action-calls/:callId) and GET /api/analytics/actions; every teammate role. */
export function actionCallRoutes(services: HttpServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.addHook('onRequest', authenticator(services));

    app.get('/api/action-calls', { schema: listActionCallsSchema }, async (request) => {
      const { limit, cursor, ...filter } = request.query;
      const page = await listActionCalls(services.readStore, authOf(request).companyId, filter, { limit, ...(cursor ? { cursor } : {}) });
      return { calls: page.items.map(actionCallView), nextCursor: page.nextCursor };
    });

    app.get('/api/action-calls/:callId', { schema: getActionCallSchema }, async (request) => {
      const call = await getActionCall(services.readStore, authOf(request).companyId, request.params.callId);
      if (!call) throw notFound('Action call');
      return { call: actionCallView(call) };
    });

    app.get('/api/analytics/actions', { schema: actionAnalyticsSchema }, async (request) => {
      const { companyId } = authOf(request);
      checkQuery(request.query);
      const timezone = await analyticsTimezone(services.readStore, companyId);
      const { from, to } = rangeOf(request.query, timezone, services.commands.clock.now());
      return { timezone, ...(await actionAnalytics(services.readStore, { companyId, from, to })) };
    });
  };
}
