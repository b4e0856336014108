import { publishAgentVersion, saveAgentDraft } from '../../commands/agents/agentVersions.js';
import { loadAgent } from '../../commands/agents/streamReads.js';
import type { LiveAgent } from '../../domain/agents/state.js';
import { diffConfigs } from '../../domain/agents/versions.js';
import { expectActive } from '../../domain/lifecycle.js';
import { findAgentVersion, listAgentPublications, listAgentVersions } from '../../projections/agentVersions/queries.js';
import { authOf } from '../authenticate.js';
import { forbidden, notFound, validationError } from '../errors.js';
import type { HttpServices } from '../services.js';
import { agentView } from './agents.schemas.js';
import {
  diffSchema,
  getVersionSchema,
  listPublicationsSchema,
  listVersionsSchema,
  publicationView,
  publishSchema,
  rollbackSchema,
  saveDraftSchema,
  versionView,
  type Released,
} from './agentVersions.schemas.js';
import type { ZodApp } from './zodApp.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Anything but a UUID cannot name an agent: 404 like any other unknown id. */
export const parseAgentId = (raw: string) => {
  if (!UUID.test(raw)) throw notFound('Agent');
  return raw.toLowerCase();
};

/** The company's agent (strongly consistent), or 404. */
async function companyAgent(services: HttpServices, companyId: string, rawId: string): Promise<LiveAgent> {
  const agent = await loadAgent(services.commands.eventStore, companyId, parseAgentId(rawId));
  if (!agent) throw notFound('Agent');
  return agent;
}

const released = (agent: LiveAgent): Released => ({
  agent: agentView(agent),
  publishedVersion: agent.publishedVersion,
  draftVersion: agent.draftVersion,
  latestVersion: agent.latestVersion,
});

/**
 * /api/agents/:id/versions…: list, read and diff versions (every role), save a draft, publish and roll back
 * (owners and admins: rolePolicy.ts).
 */
/**
 * The release gate's part of a request that puts a newer version live (a publish, an experiment's arm): the
 * check it relies on, or an override. Only an owner may go over failing checks, and says why.
 */
export function releaseGateOf(role: string, body: { releaseCheckId?: string | undefined; override?: boolean | undefined; reason?: string | undefined }) {
  if (body.override && role !== 'owner') throw forbidden('Only an owner may override the release checks');
  if (body.override && !body.reason) throw validationError('reason: an override says why');
  return { releaseCheckId: body.releaseCheckId?.toLowerCase() ?? null, overrideReason: body.override ? body.reason! : null };
}

export function registerAgentVersions(app: ZodApp, services: HttpServices): void {
  registerVersionReads(app, services);
  registerReleases(app, services);
}

function registerVersionReads(app: ZodApp, services: HttpServices): void {
  app.get('/api/agents/:id/versions', { schema: listVersionsSchema }, async (request) => {
    const agent = await companyAgent(services, authOf(request).companyId, request.params.id);
    const page = await listAgentVersions(services.readStore, agent.agentId, request.query);
    return { versions: page.items.map((d) => versionView(d, agent)), nextCursor: page.nextCursor, ...pointers(agent) };
  });

  app.get('/api/agents/:id/versions/:version', { schema: getVersionSchema }, async (request) => {
    const { companyId } = authOf(request);
    const agent = await companyAgent(services, companyId, request.params.id);
    const doc = await findAgentVersion(services.readStore, companyId, agent.agentId, request.params.version);
    if (!doc) throw notFound('Version');
    return { version: versionView(doc, agent) };
  });

  app.get('/api/agents/:id/diff', { schema: diffSchema }, async (request) => {
    const { companyId } = authOf(request);
    const agent = await companyAgent(services, companyId, request.params.id);
    const { from, to } = request.query;
    const [a, b] = await Promise.all([findAgentVersion(services.readStore, companyId, agent.agentId, from), findAgentVersion(services.readStore, companyId, agent.agentId, to)]);
    if (!a || !b) throw notFound('Version');
    return { diff: { from, to, ...diffConfigs(a.config, b.config) } };
  });

  app.get('/api/agents/:id/publications', { schema: listPublicationsSchema }, async (request) => {
    const agent = await companyAgent(services, authOf(request).companyId, request.params.id);
    const page = await listAgentPublications(services.readStore, agent.agentId, request.query);
    return { publications: page.items.map(publicationView), nextCursor: page.nextCursor };
  });
}

const pointers = (a: LiveAgent) => ({ publishedVersion: a.publishedVersion, draftVersion: a.draftVersion, latestVersion: a.latestVersion });

function registerReleases(app: ZodApp, services: HttpServices): void {
  app.post('/api/agents/:id/versions', { schema: saveDraftSchema }, async (request, reply) => {
    const auth = authOf(request);
    const agentId = parseAgentId(request.params.id);
    const result = await saveAgentDraft(services.commands, { companyId: auth.companyId, userId: auth.userId, agentId, changes: request.body });
    await services.waitForProjections(result.position);
    const agent = expectActive(result.state, 'agent');
    const doc = await findAgentVersion(services.readStore, auth.companyId, agentId, agent.draftVersion);
    if (!doc) throw notFound('Version');
    return reply.status(result.events.length > 0 ? 201 : 200).send({ version: versionView(doc, agent) });
  });

  app.post('/api/agents/:id/versions/:version/publish', { schema: publishSchema }, async (request) => {
    const auth = authOf(request);
    const agentId = parseAgentId(request.params.id);
    const body = request.body ?? {};
    const gate = releaseGateOf(auth.role, body);
    const input = { companyId: auth.companyId, userId: auth.userId, agentId, version: request.params.version, reason: body.reason ?? null, gate };
    const result = await publishAgentVersion(services.commands, input);
    await services.waitForProjections(result.position);
    return released(expectActive(result.state, 'agent'));
  });

  app.post('/api/agents/:id/rollback', { schema: rollbackSchema }, async (request) => {
    const auth = authOf(request);
    const agentId = parseAgentId(request.params.id);
    const { version, reason } = request.body;
    const result = await publishAgentVersion(services.commands, { companyId: auth.companyId, userId: auth.userId, agentId, version, reason, rollback: true });
    await services.waitForProjections(result.position);
    return released(expectActive(result.state, 'agent'));
  });
}
