import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { aiBacklogOf, aiBacklogSchema, AI_REPLIES_DELAYED_AFTER_MS } from '../../projections/conversations/aiBacklog.js';
import { authenticator, authOf } from '../authenticate.js';
import type { HttpServices } from '../services.js';
import { errorResponses } from './schemas.js';

/** GET /api/ai-backlog: whether the caller's company's AI answers are delayed (every role; its own company only). */
export function aiBacklogRoutes(services: HttpServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.addHook('onRequest', authenticator(services));
    app.get(
      '/api/ai-backlog',
      {
        schema: {
          tags: ['conversations'],
          summary: "The company's conversations waiting for an AI answer",
          description:
            'How many of the company’s conversations wait for an AI answer (an active AI session, a customer message not answered yet, not handed to people or paused), ' +
            `since when the oldest waits, and \`delayed\` once it has waited more than ${AI_REPLIES_DELAYED_AFTER_MS / 1000} s. ` +
            'Read from the conversations read model: a few seconds behind the latest messages.',
          security: [{ bearer: [] }],
          response: { 200: z.object({ aiBacklog: aiBacklogSchema }), ...errorResponses },
        },
      },
      async (request) => ({ aiBacklog: await aiBacklogOf(services.readStore, authOf(request).companyId, services.commands.clock.now()) }),
    );
  };
}
