import { endAgentExperiment, startAgentExperiment } from '../../commands/agents/agentExperiments.js';
import { loadAgent } from '../../commands/agents/streamReads.js';
import type { LiveAgent } from '../../domain/agents/state.js';
import { expectActive } from '../../domain/lifecycle.js';
import { findAgentExperiment, listAgentExperiments } from '../../projections/agentExperiments/queries.js';
import { authOf } from '../authenticate.js';
import { notFound } from '../errors.js';
import type { HttpServices } from '../services.js';
import { agentView } from './agents.schemas.js';
import { endExperimentSchema, experimentView, getExperimentSchema, listExperimentsSchema, startExperimentSchema } from './agentExperiments.schemas.js';
import { parseAgentId, releaseGateOf } from './agentVersions.js';
import type { ZodApp } from './zodApp.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The company's agent (strongly consistent), or 404. */
async function companyAgent(services: HttpServices, companyId: string, rawId: string): Promise<LiveAgent> {
  const agent = await loadAgent(services.commands.eventStore, companyId, parseAgentId(rawId));
  if (!agent) throw notFound('Agent');
  return agent;
}

/** The agent's experiment from the read model, or 404 (another agent's, so another company's too). */
async function agentExperiment(services: HttpServices, agentId: string, rawId: string) {
  const doc = UUID.test(rawId) ? await findAgentExperiment(services.readStore, agentId, rawId.toLowerCase()) : null;
  if (!doc) throw notFound('Experiment');
  return doc;
}

/** /api/agents/:id/experiments…: list and read (every role), start and end (owners and admins: rolePolicy.ts). */
export function registerAgentExperiments(app: ZodApp, services: HttpServices): void {
  app.get('/api/agents/:id/experiments', { schema: listExperimentsSchema }, async (request) => {
    const agent = await companyAgent(services, authOf(request).companyId, request.params.id);
    const page = await listAgentExperiments(services.readStore, agent.agentId, request.query);
    return { experiments: page.items.map(experimentView), nextCursor: page.nextCursor };
  });

  app.get('/api/agents/:id/experiments/:experimentId', { schema: getExperimentSchema }, async (request) => {
    const agent = await companyAgent(services, authOf(request).companyId, request.params.id);
    return { experiment: experimentView(await agentExperiment(services, agent.agentId, request.params.experimentId)) };
  });

  app.post('/api/agents/:id/experiments', { schema: startExperimentSchema }, async (request, reply) => {
    const auth = authOf(request);
    const agentId = parseAgentId(request.params.id);
    const { versions, split, holdout, confidenceLevel } = request.body;
    const gate = releaseGateOf(auth.role, request.body);
    const result = await startAgentExperiment(services.commands, { companyId: auth.companyId, userId: auth.userId, agentId, versions, split, holdout, confidenceLevel, gate });
    await services.waitForProjections(result.position);
    return reply.status(201).send({ experiment: experimentView(await agentExperiment(services, agentId, result.experimentId)) });
  });

  app.post('/api/agents/:id/experiments/:experimentId/end', { schema: endExperimentSchema }, async (request) => {
    const auth = authOf(request);
    const agent = await companyAgent(services, auth.companyId, request.params.id);
    const doc = await agentExperiment(services, agent.agentId, request.params.experimentId);
    const { winner, reason } = request.body;
    const result = await endAgentExperiment(services.commands, { companyId: auth.companyId, userId: auth.userId, agentId: agent.agentId, experimentId: doc.id, winner, reason });
    await services.waitForProjections(result.position);
    const ended = expectActive(result.state, 'agent');
    const { publishedVersion, draftVersion, latestVersion } = ended;
    return { experiment: experimentView(await agentExperiment(services, agent.agentId, doc.id)), agent: agentView(ended), publishedVersion, draftVersion, latestVersion };
  });
}
