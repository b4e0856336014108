import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { loadRetentionPolicy, setRetentionPolicy } from '../../commands/settings/retention.js';
import { authenticator, authOf } from '../authenticate.js';
import type { HttpServices } from '../services.js';
import { getRetentionSchema, setRetentionSchema } from './retention.schemas.js';

/** GET and PUT /api/settings/retention (owners and admins: the role policy's `/api/settings/*`). */
export function retentionRoutes(services: HttpServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.addHook('onRequest', authenticator(services));
    app.get('/api/settings/retention', { schema: getRetentionSchema }, async (request) => ({
      retention: await loadRetentionPolicy(services.commands.eventStore, authOf(request).companyId),
    }));
    app.put('/api/settings/retention', { schema: setRetentionSchema }, async (request) => {
      const auth = authOf(request);
      const result = await setRetentionPolicy(services.commands, { companyId: auth.companyId, userId: auth.userId, conversationDays: request.body.conversationDays });
      return { retention: result.state };
    });
  };
}
