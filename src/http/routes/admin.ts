import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { formatMicros } from '../../domain/credits/pricing.js';
import { grantCredits } from '../../commands/credits/grantCredits.js';
import { loadUser } from '../../commands/accounts/queries.js';
import { COMPANIES, type CompanyDoc } from '../../projections/companies/companiesProjection.js';
import { CREDIT_BALANCES, type CreditBalanceDoc } from '../../projections/credits/creditsProjection.js';
import { authenticator, authOf } from '../authenticate.js';
import { forbidden, notFound } from '../errors.js';
import type { HttpServices } from '../services.js';
import { errorResponses, listQuery } from './schemas.js';

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

    app.get(
      '/api/admin/companies',
      {
        schema: {
          tags: ['admin'],
          security: [{ bearer: [] }],
          querystring: listQuery,
          response: {
            200: z.object({
              companies: z.array(
                z.object({ id: z.number().int(), companyId: z.uuid(), companyName: z.string(), createdAt: z.string(), balanceMicros: z.number().int(), balance: z.string() }),
              ),
              nextCursor: z.string().nullable(),
            }),
            ...errorResponses,
          },
        },
      },
      async (request) => {
        const page = await services.readStore.find<CompanyDoc>(COMPANIES, {
          orderBy: [{ field: 'createdAt', direction: 'desc' }],
          limit: request.query.limit,
          cursor: request.query.cursor,
        });
        const companies = await Promise.all(
          page.items.map(async (c) => {
            const balanceMicros = (await services.readStore.get<CreditBalanceDoc>(CREDIT_BALANCES, c.id))?.balanceMicros ?? 0;
            return { id: c.companyKey, companyId: c.id, companyName: c.companyName, createdAt: c.createdAt, balanceMicros, balance: formatMicros(balanceMicros) };
          }),
        );
        return { companies, nextCursor: page.nextCursor };
      },
    );

    app.post(
      '/api/admin/companies/:id/credits',
      {
        schema: {
          tags: ['admin'],
          security: [{ bearer: [] }],
          params: z.object({ id: z.coerce.number().int().positive() }),
          body: z.strictObject({ amountMicros: z.number().int().positive().max(1_000_000_000_000), reason: z.string().trim().min(1).max(200) }),
          response: { 200: z.object({ credits: z.object({ balanceMicros: z.number().int(), balance: z.string() }) }), ...errorResponses },
        },
      },
      async (request) => {
        const page = await services.readStore.find<CompanyDoc>(COMPANIES, { where: { companyKey: request.params.id }, limit: 1 });
        const company = page.items[0];
        if (!company) throw notFound('Company');
        const result = await grantCredits(services.commands, {
          companyId: company.id,
          amountMicros: request.body.amountMicros,
          reason: request.body.reason,
          grantedBy: authOf(request).userId,
        });
        await services.waitForProjections(result.position);
        return { credits: { balanceMicros: result.balanceMicros, balance: formatMicros(result.balanceMicros) } };
      },
    );
  };
}
