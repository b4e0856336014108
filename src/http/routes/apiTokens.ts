import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { createApiToken, revokeApiToken } from '../../commands/apiTokens/apiTokens.js';
import { API_TOKENS, type ApiTokenDoc } from '../../projections/apiTokens/apiTokensProjection.js';
import { authenticator, authOf, requireSession } from '../authenticate.js';
import { notFound } from '../errors.js';
import type { HttpServices } from '../services.js';
import { errorResponses, listQuery } from './schemas.js';

const apiToken = z.object({ id: z.uuid(), name: z.string(), prefix: z.string(), createdAt: z.string(), lastUsedAt: z.string().nullable() });
const view = (d: ApiTokenDoc) => ({ id: d.id, name: d.name, prefix: d.prefix, createdAt: d.createdAt, lastUsedAt: d.lastUsedAt });

export function apiTokenRoutes(services: HttpServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.addHook('onRequest', authenticator(services));

    app.get(
      '/api/settings/api-tokens',
      {
        schema: {
          tags: ['settings'],
          security: [{ bearer: [] }],
          querystring: listQuery,
          response: { 200: z.object({ apiTokens: z.array(apiToken), nextCursor: z.string().nullable() }), ...errorResponses },
        },
      },
      async (request) => {
        const { companyId } = authOf(request);
        const page = await services.readStore.find<ApiTokenDoc>(API_TOKENS, {
          where: { companyId, revoked: false },
          orderBy: [{ field: 'createdAt', direction: 'desc' }],
          limit: request.query.limit,
          cursor: request.query.cursor,
        });
        return { apiTokens: page.items.map(view), nextCursor: page.nextCursor };
      },
    );

    app.post(
      '/api/settings/api-tokens',
      {
        schema: {
          tags: ['settings'],
          security: [{ bearer: [] }],
          body: z.strictObject({ name: z.string().trim().min(1).max(100) }),
          response: { 201: z.object({ token: z.string(), apiToken }), ...errorResponses },
        },
      },
      async (request, reply) => {
        const auth = requireSession(request);
        const created = await createApiToken(services.commands, { companyId: auth.companyId, userId: auth.userId, name: request.body.name });
        await services.waitForProjections(created.position);
        return reply.status(201).send({ token: created.token, apiToken: created.apiToken });
      },
    );

    app.delete(
      '/api/settings/api-tokens/:id',
      {
        schema: {
          tags: ['settings'],
          security: [{ bearer: [] }],
          params: z.object({ id: z.string().max(64) }),
          response: { 204: z.null(), ...errorResponses },
        },
      },
      async (request, reply) => {
        const auth = requireSession(request);
        if (!z.uuid().safeParse(request.params.id).success) throw notFound('API token');
        const result = await revokeApiToken(services.commands, { companyId: auth.companyId, userId: auth.userId, tokenId: request.params.id });
        await services.waitForProjections(result.position);
        return reply.status(204).send(null);
      },
    );
  };
}
