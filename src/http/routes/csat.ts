import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { analyticsTimezone } from '../../projections/analytics/queries.js';
import { csatReport, listCsatResponses } from '../../projections/csat/queries.js';
import { authenticator, authOf } from '../authenticate.js';
import type { HttpServices } from '../services.js';
import { checkQuery, rangeOf } from './analytics.js';
import { csatReportSchema, csatResponsesSchema } from './csat.schemas.js';

/** GET /api/analytics/csat and /api/analytics/csat/responses (every teammate role). */
export function csatRoutes(services: HttpServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.addHook('onRequest', authenticator(services));
    app.get('/api/analytics/csat', { schema: csatReportSchema }, async (request) => {
      const { companyId } = authOf(request);
      checkQuery(request.query);
      const timezone = await analyticsTimezone(services.readStore, companyId);
      const { from, to } = rangeOf(request.query, timezone, services.commands.clock.now());
      return { timezone, ...(await csatReport(services.readStore, { companyId, from, to })) };
    });
    app.get('/api/analytics/csat/responses', { schema: csatResponsesSchema }, async (request) => {
      const page = await listCsatResponses(services.readStore, authOf(request).companyId, request.query);
      // Answers projected before versions were recorded carry none.
      return { responses: page.items.map(({ companyId: _c, ...r }) => ({ ...r, agentVersion: r.agentVersion ?? null })), nextCursor: page.nextCursor };
    });
  };
}
