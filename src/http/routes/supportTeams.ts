import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { createSupportTeam, deleteSupportTeam, setTeamRoute, updateSupportTeam } from '../../commands/supportTeams/supportTeams.js';
import { loadSupportTeams } from '../../commands/supportTeams/streamReads.js';
import { listSupportTeams, teamRoutes } from '../../projections/supportTeams/queries.js';
import { authenticator, authOf } from '../authenticate.js';
import { notFound } from '../errors.js';
import type { HttpServices } from '../services.js';
import {
  createSupportTeamSchema,
  deleteSupportTeamSchema,
  getSupportTeamSchema,
  listSupportTeamsSchema,
  setTeamRouteSchema,
  supportTeamView,
  updateSupportTeamSchema,
} from './supportTeams.schemas.js';
import type { ZodApp } from './zodApp.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const parseId = (raw: string) => {
  if (!UUID.test(raw)) throw notFound('Team');
  return raw.toLowerCase();
};
const routeList = (routes: Iterable<[number | string, string]>) => [...routes].map(([integrationId, teamId]) => ({ integrationId: Number(integrationId), teamId }));

/** GET/POST /api/teams, GET/PATCH/DELETE /api/teams/:id, PUT /api/teams/routes/:integrationId (writes: owners and admins, rolePolicy.ts). */
export function supportTeamRoutes(services: HttpServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.addHook('onRequest', authenticator(services));
    registerTeamList(app, services);
    registerTeam(app, services);
  };
}

function registerTeamList(app: ZodApp, services: HttpServices): void {
  app.get('/api/teams', { schema: listSupportTeamsSchema }, async (request) => {
    const { companyId } = authOf(request);
    const [teams, routes] = await Promise.all([listSupportTeams(services.readStore, companyId), teamRoutes(services.readStore, companyId)]);
    return { teams: teams.map(supportTeamView), routes: routeList(Object.entries(routes)) };
  });

  app.post('/api/teams', { schema: createSupportTeamSchema }, async (request, reply) => {
    const auth = authOf(request);
    const result = await createSupportTeam(services.commands, { companyId: auth.companyId, userId: auth.userId, ...request.body });
    await services.waitForProjections(result.position);
    return reply.status(201).send({ team: supportTeamView(result.team) });
  });

  app.put('/api/teams/routes/:integrationId', { schema: setTeamRouteSchema }, async (request) => {
    const auth = authOf(request);
    const result = await setTeamRoute(services.commands, { companyId: auth.companyId, userId: auth.userId, integrationId: request.params.integrationId, teamId: request.body.teamId });
    await services.waitForProjections(result.position);
    return { routes: routeList(result.state.routes) };
  });
}

function registerTeam(app: ZodApp, services: HttpServices): void {
  app.get('/api/teams/:id', { schema: getSupportTeamSchema }, async (request) => {
    const found = (await loadSupportTeams(services.commands.eventStore, authOf(request).companyId)).teams.get(parseId(request.params.id));
    if (!found) throw notFound('Team');
    return { team: supportTeamView(found) };
  });

  app.patch('/api/teams/:id', { schema: updateSupportTeamSchema }, async (request) => {
    const auth = authOf(request);
    const result = await updateSupportTeam(services.commands, { companyId: auth.companyId, userId: auth.userId, teamId: parseId(request.params.id), changes: request.body });
    await services.waitForProjections(result.position);
    return { team: supportTeamView(result.team) };
  });

  app.delete('/api/teams/:id', { schema: deleteSupportTeamSchema }, async (request, reply) => {
    const auth = authOf(request);
    const result = await deleteSupportTeam(services.commands, { companyId: auth.companyId, userId: auth.userId, teamId: parseId(request.params.id) });
    await services.waitForProjections(result.position);
    return reply.status(204).send(null);
  });
}
