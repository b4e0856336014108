import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { createAgent, deleteAgent, updateAgent } from '../../commands/agents/agents.js';
import { loadAgent } from '../../commands/agents/streamReads.js';
import { expectActive } from '../../domain/lifecycle.js';
import { listAgents } from '../../projections/agents/queries.js';
import { authenticator, authOf } from '../authenticate.js';
import { notFound } from '../errors.js';
import type { HttpServices } from '../services.js';
import { agentView, createAgentSchema, deleteAgentSchema, getAgentSchema, listAgentsSchema, updateAgentSchema } from './agents.schemas.js';
import { registerAgentExperiments } from './agentExperiments.js';
import { registerAgentReleases } from './agentReleases.js';
import { registerAgentTests } from './agentTests.js';
import { parseAgentId, registerAgentVersions } from './agentVersions.js';
import type { ZodApp } from './zodApp.js';

/** GET/POST /api/agents, GET/PATCH/DELETE /api/agents/:id, the agent's versions (agentVersions.ts), tests (agentTests.ts) and experiments (agentExperiments.ts). */
export function agentRoutes(services: HttpServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.addHook('onRequest', authenticator(services));
    registerAgentList(app, services);
    registerAgent(app, services);
    registerAgentVersions(app, services);
    registerAgentTests(app, services);
    registerAgentExperiments(app, services);
    registerAgentReleases(app, services);
  };
}

function registerAgentList(app: ZodApp, services: HttpServices): void {
  app.get('/api/agents', { schema: listAgentsSchema }, async (request) => {
    const page = await listAgents(services.readStore, authOf(request).companyId, request.query);
    return { agents: page.items.map(agentView), nextCursor: page.nextCursor };
  });

  app.post('/api/agents', { schema: createAgentSchema }, async (request, reply) => {
    const auth = authOf(request);
    const result = await createAgent(services.commands, { ...request.body, companyId: auth.companyId, userId: auth.userId });
    await services.waitForProjections(result.position);
    return reply.status(201).send({ agent: agentView(expectActive(result.state, 'agent')) });
  });
}

function registerAgent(app: ZodApp, services: HttpServices): void {
  app.get('/api/agents/:id', { schema: getAgentSchema }, async (request) => {
    const agent = await loadAgent(services.commands.eventStore, authOf(request).companyId, parseAgentId(request.params.id));
    if (!agent) throw notFound('Agent');
    return { agent: agentView(agent) };
  });

  app.patch('/api/agents/:id', { schema: updateAgentSchema }, async (request) => {
    const auth = authOf(request);
    const result = await updateAgent(services.commands, { companyId: auth.companyId, userId: auth.userId, agentId: parseAgentId(request.params.id), changes: request.body });
    await services.waitForProjections(result.position);
    return { agent: agentView(expectActive(result.state, 'agent')) };
  });

  app.delete('/api/agents/:id', { schema: deleteAgentSchema }, async (request, reply) => {
    const auth = authOf(request);
    const result = await deleteAgent(services.commands, { companyId: auth.companyId, userId: auth.userId, agentId: parseAgentId(request.params.id) });
    await services.waitForProjections(result.position);
    return reply.status(204).send(null);
  });
}
