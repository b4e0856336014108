import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { formatMicros } from '../../domain/credits/decider.js';
import { grantCredits } from '../../commands/credits/grantCredits.js';
import { loadUser } from '../../commands/accounts/streamReads.js';
import { findCompanyByKey, listCompaniesWithBalances } from '../../projections/companies/queries.js';
import { authenticator, authOf } from '../authenticate.js';
import { forbidden, notFound } from '../errors.js';
import type { HttpServices } from '../services.js';
import { companyView, grantCreditsSchema, listCompaniesSchema } from './admin.schemas.js';

/**
 * Superadmin routes, for accounts an operator made superadmin (`npm run superadmin -- grant <email>`), read
 * from the user's stream on every request so a revoke applies at once. Only a signed-in superadmin's session
 * opens them, never an API token; anyone else gets 403 (the routes are in the public OpenAPI document anyway).
 */
export function adminRoutes(services: HttpServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.addHook('onRequest', authenticator(services));
    app.addHook('preHandler', async (request: FastifyRequest) => {
      const auth = authOf(request);
      const user = await loadUser(services.commands.eventStore, auth.userId);
      if (auth.kind !== 'session' || !user?.isSuperadmin) throw forbidden('Only a superadmin may use this route');
    });

    app.get('/api/admin/companies', { schema: listCompaniesSchema }, async (request) => {
      const page = await listCompaniesWithBalances(services.readStore, request.query);
      return { companies: page.items.map(companyView), nextCursor: page.nextCursor };
    });

    app.post('/api/admin/companies/:id/credits', { schema: grantCreditsSchema }, async (request) => {
      const company = await findCompanyByKey(services.readStore, request.params.id);
      if (!company) throw notFound('Company');
      const result = await grantCredits(services.commands, {
        companyId: company.id,
        amountMicros: request.body.amountMicros,
        reason: request.body.reason,
        grantedBy: authOf(request).userId,
      });
      await services.waitForProjections(result.position);
      return { credits: { balanceMicros: result.balanceMicros, balance: formatMicros(result.balanceMicros) } };
    });
  };
}
