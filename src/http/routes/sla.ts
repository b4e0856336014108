import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { loadCompanyTimezone, loadSlaPolicy } from '../../commands/settings/streamReads.js';
import { setSlaPolicy } from '../../commands/settings/slaPolicy.js';
import { slaReport } from '../../projections/sla/queries.js';
import { authenticator, authOf } from '../authenticate.js';
import type { HttpServices } from '../services.js';
import { checkQuery, rangeOf } from './analytics.js';
import { getSlaPolicySchema, setSlaPolicySchema, slaAnalyticsSchema } from './sla.schemas.js';

/**
 * GET/PUT /api/settings/sla (owners and admins, by the role policy's /api/settings rule) and
 * GET /api/analytics/sla (every role): SLA targets per priority, and how many were met and breached.
 */
export function slaRoutes(services: HttpServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.addHook('onRequest', authenticator(services));
    app.get('/api/settings/sla', { schema: getSlaPolicySchema }, async (request) => {
      const { enabled, targets } = await loadSlaPolicy(services.commands.eventStore, authOf(request).companyId);
      return { enabled, targets };
    });
    app.put('/api/settings/sla', { schema: setSlaPolicySchema }, async (request) => {
      const auth = authOf(request);
      const result = await setSlaPolicy(services.commands, { companyId: auth.companyId, userId: auth.userId, policy: request.body });
      await services.waitForProjections(result.position);
      return { enabled: result.state.enabled, targets: result.state.targets };
    });
    app.get('/api/analytics/sla', { schema: slaAnalyticsSchema }, async (request) => {
      const { companyId } = authOf(request);
      checkQuery(request.query);
      const timezone = await loadCompanyTimezone(services.commands.eventStore, companyId);
      const { from, to } = rangeOf(request.query, timezone, services.commands.clock.now());
      return { from, to, ...(await slaReport(services.readStore, companyId, from, to)) };
    });
  };
}
