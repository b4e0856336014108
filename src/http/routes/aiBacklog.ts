import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { aiBacklogOf } from '../../projections/conversations/aiBacklog.js';
import { authenticator, authOf } from '../authenticate.js';
import type { HttpServices } from '../services.js';
import { aiBacklogRouteSchema } from './aiBacklog.schemas.js';

/** GET /api/ai-backlog: whether the caller's company's AI answers are delayed (every role; its own company only). */
export function aiBacklogRoutes(services: HttpServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.addHook('onRequest', authenticator(services));
    app.get('/api/ai-backlog', { schema: aiBacklogRouteSchema }, async (request) => ({
      aiBacklog: await aiBacklogOf(services.readStore, authOf(request).companyId, services.commands.clock.now()),
    }));
  };
}
