import { DEFAULT_ANSWER_THRESHOLD } from '../../domain/answers/evidence.js';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { loadAgent } from '../../commands/agents/streamReads.js';
import { cancelReplay, estimateReplay, requestReplay } from '../../commands/replays/replays.js';
import { DEFAULT_AGENT_HANDOFF_MESSAGE } from '../../domain/agents/events.js';
import type { ReplayDraft } from '../../domain/replays/events.js';
import { findCompanyReplay, listReplayAnswers, listReplays } from '../../projections/replays/queries.js';
import { countReplayEvents } from '../../workers/replays/countReplayEvents.js';
import { authenticator, authOf } from '../authenticate.js';
import { notFound } from '../errors.js';
import { idempotencyKeyOf, markRepeated } from '../idempotencyKey.js';
import type { HttpServices } from '../services.js';
import {
  answerView,
  cancelReplaySchema,
  estimateReplaySchema,
  estimateView,
  getReplaySchema,
  listReplaysSchema,
  replayView,
  startReplaySchema,
  type DraftInput,
} from './replays.schemas.js';
import type { ZodApp } from './zodApp.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The draft as stored: an agent it starts from must be the company's own. */
async function draftOf(services: HttpServices, companyId: string, input: DraftInput): Promise<ReplayDraft> {
  const basedOnAgentId = input.basedOnAgentId?.toLowerCase() ?? null;
  const agent = basedOnAgentId ? await loadAgent(services.commands.eventStore, companyId, basedOnAgentId) : null;
  if (basedOnAgentId && !agent) throw notFound('Agent');
  return {
    basedOnAgentId,
    systemPrompt: input.systemPrompt,
    model: input.model,
    temperature: input.temperature,
    useKnowledgeBase: input.useKnowledgeBase,
    handoffMessage: input.handoffMessage ?? DEFAULT_AGENT_HANDOFF_MESSAGE,
    answerThreshold: input.answerThreshold ?? agent?.answerThreshold ?? DEFAULT_ANSWER_THRESHOLD,
    generalAnswers: input.generalAnswers ?? agent?.generalAnswers ?? false,
    // The agent's actions, answered in the replay by their sample responses (never the company's endpoint).
    ...(agent?.actionIds?.length ? { actionIds: agent.actionIds } : {}),
  };
}

/** The company's replay from the read model; 404 otherwise. */
async function ownedReplay(services: HttpServices, companyId: string, raw: string) {
  const doc = UUID.test(raw) ? await findCompanyReplay(services.readStore, companyId, raw.toLowerCase()) : null;
  if (!doc) throw notFound('Replay');
  return doc;
}

/**
 * Replay evaluations: POST /api/replays/estimate, POST /api/replays (with the confirmed estimate),
 * GET /api/replays, GET /api/replays/:id (with its answers), POST /api/replays/:id/cancel.
 */
export function replayRoutes(services: HttpServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.addHook('onRequest', authenticator(services));
    registerReplayStart(app, services);
    registerReplayReads(app, services);
    registerReplayCancel(app, services);
  };
}

function registerReplayStart(app: ZodApp, services: HttpServices): void {
  const deps = { ...services.commands, pricing: services.config.pricing };
  app.post('/api/replays/estimate', { schema: estimateReplaySchema }, async (request) => {
    const companyId = authOf(request).companyId;
    const draft = await draftOf(services, companyId, request.body.draft);
    return { estimate: estimateView(await estimateReplay(deps, { companyId, draft, conversationIds: request.body.conversationIds })) };
  });

  app.post('/api/replays', { schema: startReplaySchema }, async (request, reply) => {
    const auth = authOf(request);
    const draft = await draftOf(services, auth.companyId, request.body.draft);
    const idempotencyKey = idempotencyKeyOf(request);
    const { replayId, position, repeated } = await requestReplay(deps, {
      companyId: auth.companyId,
      userId: auth.userId,
      draft,
      conversationIds: request.body.conversationIds,
      confirmedCostMicros: request.body.confirmedCostMicros,
      ...(idempotencyKey ? { idempotencyKey } : {}),
    });
    await services.waitForProjections(position);
    return markRepeated(reply, repeated).status(201).send({ replay: replayView(await ownedReplay(services, auth.companyId, replayId)) });
  });
}

function registerReplayReads(app: ZodApp, services: HttpServices): void {
  app.get('/api/replays', { schema: listReplaysSchema }, async (request) => {
    const page = await listReplays(services.readStore, authOf(request).companyId, request.query);
    return { replays: page.items.map(replayView), nextCursor: page.nextCursor };
  });

  app.get('/api/replays/:id', { schema: getReplaySchema }, async (request) => {
    const replay = await ownedReplay(services, authOf(request).companyId, request.params.id);
    const page = await listReplayAnswers(services.readStore, replay.id, request.query);
    return { replay: replayView(replay), answers: page.items.map(answerView), nextCursor: page.nextCursor };
  });
}

function registerReplayCancel(app: ZodApp, services: HttpServices): void {
  app.post('/api/replays/:id/cancel', { schema: cancelReplaySchema }, async (request) => {
    const auth = authOf(request);
    const replay = await ownedReplay(services, auth.companyId, request.params.id);
    const result = await cancelReplay(services.commands, { companyId: auth.companyId, userId: auth.userId, replayId: replay.id });
    if (services.replayMetrics) countReplayEvents(services.replayMetrics, result.events);
    await services.waitForProjections(result.position);
    const view = replayView(await ownedReplay(services, auth.companyId, replay.id));
    // A second cancel appends nothing: the stream, not a read model that may lag, says it is cancelled.
    return { replay: { ...view, status: result.state.status === 'none' ? view.status : result.state.status } };
  });
}
