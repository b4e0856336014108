import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { searchConversations } from '../../projections/search/queries.js';
import { authenticator, authOf } from '../authenticate.js';
import type { HttpServices } from '../services.js';
import { searchResultView, searchSchema } from './search.schemas.js';

/**
 * GET /api/search: the company's messages and customer names holding every word of `q`, newest first. Hits carry
 * plain text and match offsets (never HTML), so a client marks them up without trusting customer text.
 */
export function searchRoutes(services: HttpServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.addHook('onRequest', authenticator(services));
    app.get('/api/search', { schema: searchSchema }, async (request) => {
      const { q, limit, cursor } = request.query;
      const page = await searchConversations(services.readStore, authOf(request).companyId, { text: q, limit, cursor });
      return { results: page.items.map(searchResultView), nextCursor: page.nextCursor };
    });
  };
}
