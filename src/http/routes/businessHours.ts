import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { setBusinessHours } from '../../commands/settings/businessHours.js';
import { loadBusinessHours } from '../../commands/settings/streamReads.js';
import type { BusinessHoursState } from '../../domain/company/businessHours/state.js';
import { isOpenAt, nextOpening } from '../../domain/company/businessHours/schedule.js';
import { authenticator, authOf } from '../authenticate.js';
import type { HttpServices } from '../services.js';
import { getBusinessHoursSchema, setBusinessHoursSchema, type BusinessHoursView } from './businessHours.schemas.js';

const ALWAYS_OPEN = { enabled: false, weekly: { monday: [], tuesday: [], wednesday: [], thursday: [], friday: [], saturday: [], sunday: [] }, holidays: [] };

function viewOf(state: BusinessHoursState, now: Date): BusinessHoursView {
  const hours = state.hours ?? ALWAYS_OPEN;
  const next = nextOpening(state.hours, state.timezone, now);
  return { ...hours, timezone: state.timezone, openNow: isOpenAt(state.hours, state.timezone, now), nextOpening: next?.toISOString() ?? null };
}

/** GET (every role) and PUT (owners and admins, by the role policy) /api/settings/business-hours. */
export function businessHoursRoutes(services: HttpServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.addHook('onRequest', authenticator(services));
    app.get('/api/settings/business-hours', { schema: getBusinessHoursSchema }, async (request) =>
      viewOf(await loadBusinessHours(services.commands.eventStore, authOf(request).companyId), services.commands.clock.now()),
    );
    app.put('/api/settings/business-hours', { schema: setBusinessHoursSchema }, async (request) => {
      const auth = authOf(request);
      const result = await setBusinessHours(services.commands, { companyId: auth.companyId, userId: auth.userId, hours: request.body });
      await services.waitForProjections(result.position);
      return viewOf(result.state, services.commands.clock.now());
    });
  };
}
