import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { configureRedaction } from '../../commands/settings/redaction.js';
import { loadRedaction } from '../../commands/settings/streamReads.js';
import { authenticator, authOf } from '../authenticate.js';
import type { HttpServices } from '../services.js';
import { getRedactionSchema, setRedactionSchema } from './redaction.schemas.js';

/** GET/PUT /api/settings/redaction (owners and admins, by the role policy's /api/settings rule). */
export function redactionRoutes(services: HttpServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.addHook('onRequest', authenticator(services));

    app.get('/api/settings/redaction', { schema: getRedactionSchema }, async (request) => ({
      redaction: await loadRedaction(services.commands.eventStore, authOf(request).companyId),
    }));

    app.put('/api/settings/redaction', { schema: setRedactionSchema }, async (request) => {
      const auth = authOf(request);
      const result = await configureRedaction(services.commands, { companyId: auth.companyId, userId: auth.userId, enabled: request.body.enabled, agents: request.body.agents ?? {} });
      return { redaction: result.state };
    });
  };
}
