import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { setAvailability } from '../../commands/accounts/setAvailability.js';
import { configureAutoAssignment } from '../../commands/settings/autoAssignment.js';
import { loadAutoAssignment } from '../../commands/settings/streamReads.js';
import { authenticator, authOf } from '../authenticate.js';
import type { HttpServices } from '../services.js';
import { getAutoAssignmentSchema, setAutoAssignmentSchema, setAvailabilitySchema } from './assignment.schemas.js';

/**
 * PUT /api/team/me/availability (every role, their own) and GET/PUT /api/settings/auto-assignment (owners and
 * admins, by the role policy's /api/settings rule).
 */
export function assignmentRoutes(services: HttpServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.addHook('onRequest', authenticator(services));

    app.put('/api/team/me/availability', { schema: setAvailabilitySchema }, async (request) => {
      const auth = authOf(request);
      const result = await setAvailability(services.commands, auth, request.body.availability);
      await services.waitForProjections(result.position);
      return { availability: result.state.availability };
    });

    app.get('/api/settings/auto-assignment', { schema: getAutoAssignmentSchema }, async (request) => ({
      autoAssignment: await loadAutoAssignment(services.commands.eventStore, authOf(request).companyId),
    }));

    app.put('/api/settings/auto-assignment', { schema: setAutoAssignmentSchema }, async (request) => {
      const auth = authOf(request);
      const result = await configureAutoAssignment(services.commands, { companyId: auth.companyId, userId: auth.userId, ...request.body });
      await services.waitForProjections(result.position);
      return { autoAssignment: result.state };
    });
  };
}
