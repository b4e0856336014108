import { estimateReleaseCheck, loadReleaseCheck, releaseOutcome, startReleaseCheck, type ReleaseCheck } from '../../commands/agents/releaseChecks.js';
import { loadAgent } from '../../commands/agents/streamReads.js';
import { failingRequiredCases, RELEASE_CHECK_LIMITS } from '../../domain/agents/releaseGate.js';
import { compareTurn, currentSide, draftSide } from '../../domain/agents/releaseReport.js';
import { recentAgentConversationIds } from '../../projections/conversations/queries.js';
import { findCompanyReplay, listReplayAnswers } from '../../projections/replays/queries.js';
import type { ReplayAnswerDoc } from '../../projections/replays/replaysProjection.js';
import { authOf } from '../authenticate.js';
import { notFound } from '../errors.js';
import { idempotencyKeyOf, markRepeated } from '../idempotencyKey.js';
import type { HttpServices } from '../services.js';
import { estimateReleaseCheckSchema, getReleaseCheckSchema, startReleaseCheckSchema, type ReleaseCheckView } from './agentReleases.schemas.js';
import { testRunView } from './agentTests.js';
import { parseAgentId } from './agentVersions.js';
import type { ZodApp } from './zodApp.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function releaseCheckView(check: ReleaseCheck): ReleaseCheckView {
  const { run, replayStatus } = check;
  const outcome = releaseOutcome(check);
  const failedCases = failingRequiredCases(outcome);
  const release = run.started.release!;
  return {
    id: run.started.runId,
    agentId: run.started.agentId,
    version: run.started.version,
    status: outcome.finished ? 'finished' : 'running',
    gate: { passed: outcome.finished ? failedCases.length === 0 : null, failedCases },
    suite: testRunView(run),
    replay: release.replayId && replayStatus ? { id: release.replayId, status: replayStatus } : null,
    conversations: release.conversations,
    createdAt: run.started.at,
    createdBy: run.started.by,
  };
}

function turnView(a: ReplayAnswerDoc) {
  const current = currentSide(a.recorded);
  const draft = draftSide(a.draft);
  return { conversationId: a.conversationId, turn: a.turn, customerText: a.customerText, customerAt: a.customerAt, current, draft, changes: compareTurn(current, draft) };
}

/** The company's agent id (checked on its stream), or 404. */
async function companyAgentId(services: HttpServices, companyId: string, rawId: string): Promise<string> {
  const agentId = parseAgentId(rawId);
  if (!(await loadAgent(services.commands.eventStore, companyId, agentId))) throw notFound('Agent');
  return agentId;
}

/**
 * /api/agents/:id/release-checks: estimate and start a check of a version before it is published (owners and
 * admins: rolePolicy.ts), and read it with its side-by-side report (every role). The publish that relies on it
 * is agentVersions.ts's.
 */
export function registerAgentReleases(app: ZodApp, services: HttpServices): void {
  const deps = { ...services.commands, pricing: services.config.pricing };
  app.post('/api/agents/:id/release-checks/estimate', { schema: estimateReleaseCheckSchema }, async (request) => {
    const auth = authOf(request);
    const agentId = await companyAgentId(services, auth.companyId, request.params.id);
    const conversationIds = await recentAgentConversationIds(services.readStore, auth.companyId, agentId, request.body?.conversations ?? RELEASE_CHECK_LIMITS.defaultConversations);
    const e = await estimateReleaseCheck(deps, { companyId: auth.companyId, userId: auth.userId, agentId, version: request.body?.version ?? null, conversationIds });
    const conversations = e.conversations.map((c) => ({ conversationId: c.conversationId, messages: c.turns }));
    const suite = { cases: e.suite.cases, messages: e.suite.messages, costMicros: e.suite.costMicros };
    return { estimate: { version: e.version, conversations, messages: e.messages, suite, costMicros: e.costMicros + suite.costMicros, provider: e.llm.kind, model: e.llm.model } };
  });

  app.post('/api/agents/:id/release-checks', { schema: startReleaseCheckSchema }, async (request, reply) => {
    const auth = authOf(request);
    const agentId = await companyAgentId(services, auth.companyId, request.params.id);
    const conversationIds = await recentAgentConversationIds(services.readStore, auth.companyId, agentId, request.body?.conversations ?? RELEASE_CHECK_LIMITS.defaultConversations);
    const idempotencyKey = idempotencyKeyOf(request);
    const input = { companyId: auth.companyId, userId: auth.userId, agentId, version: request.body?.version ?? null, conversationIds, confirmedCostMicros: request.body?.confirmedCostMicros ?? 0 };
    const started = await startReleaseCheck(deps, idempotencyKey ? { ...input, idempotencyKey } : input);
    const check = await loadReleaseCheck(services.commands, auth.companyId, agentId, started.runId, { replayStatus: false });
    if (!check) throw notFound('Release check');
    const replayStatus = check.run.started.release?.replayId ? 'running' : null;
    return markRepeated(reply, started.repeated).status(202).send({ check: releaseCheckView({ ...check, replayStatus }) });
  });

  app.get('/api/agents/:id/release-checks/:checkId', { schema: getReleaseCheckSchema }, async (request) => {
    const { companyId } = authOf(request);
    const agentId = await companyAgentId(services, companyId, request.params.id);
    const checkId = request.params.checkId;
    const check = UUID.test(checkId) ? await loadReleaseCheck(services.commands, companyId, agentId, checkId.toLowerCase(), { replayStatus: false }) : null;
    if (!check) throw notFound('Release check');
    const replayId = check.run.started.release?.replayId;
    if (!replayId) return { check: releaseCheckView(check), turns: [], nextCursor: null };
    // The report's turns come from the read model: the check reads finished once they are all there.
    const replay = await findCompanyReplay(services.readStore, companyId, replayId);
    const page = await listReplayAnswers(services.readStore, replayId, request.query);
    return { check: releaseCheckView({ ...check, replayStatus: replay?.status ?? 'running' }), turns: page.items.map(turnView), nextCursor: page.nextCursor };
  });
}
