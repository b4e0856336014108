import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { createApiToken, revokeApiToken } from '../../commands/apiTokens/apiTokens.js';
import { listApiTokens, withCreators } from '../../projections/apiTokens/queries.js';
import { authenticator, authOf, requireSession } from '../authenticate.js';
import { notFound } from '../errors.js';
import type { HttpServices } from '../services.js';
import { apiTokenView, createApiTokenSchema, listApiTokensSchema, revokeApiTokenSchema } from './apiTokens.schemas.js';

/** GET/POST /api/settings/api-tokens, DELETE /api/settings/api-tokens/:id (creating and revoking need a person's session). */
export function apiTokenRoutes(services: HttpServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.addHook('onRequest', authenticator(services));

    app.get('/api/settings/api-tokens', { schema: listApiTokensSchema }, async (request) => {
      const { companyId } = authOf(request);
      const page = await listApiTokens(services.readStore, companyId, request.query);
      return { apiTokens: (await withCreators(services.readStore, companyId, page.items)).map(apiTokenView), nextCursor: page.nextCursor };
    });

    app.post('/api/settings/api-tokens', { schema: createApiTokenSchema }, async (request, reply) => {
      const auth = requireSession(request);
      const created = await createApiToken(services.commands, { companyId: auth.companyId, userId: auth.userId, name: request.body.name });
      await services.waitForProjections(created.position);
      const [apiToken] = await withCreators(services.readStore, auth.companyId, [created.apiToken]);
      return reply.status(201).send({ token: created.token, apiToken: apiTokenView(apiToken!) });
    });

    app.delete('/api/settings/api-tokens/:id', { schema: revokeApiTokenSchema }, async (request, reply) => {
      const auth = requireSession(request);
      if (!z.uuid().safeParse(request.params.id).success) throw notFound('API token');
      const result = await revokeApiToken(services.commands, { companyId: auth.companyId, userId: auth.userId, tokenId: request.params.id });
      await services.waitForProjections(result.position);
      return reply.status(204).send(null);
    });
  };
}
