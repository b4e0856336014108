import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { loadAgent } from '../../commands/agents/queries.js';
import { cancelReplay, estimateReplay, requestReplay } from '../../commands/replays/replays.js';
import { AGENT_LIMITS, DEFAULT_AGENT_HANDOFF_MESSAGE } from '../../domain/agents/events.js';
import { REPLAY_LIMITS, draftAnswerSchema, recordedAnswerSchema, replayDraftSchema, type ReplayDraft } from '../../domain/replays/events.js';
import { REPLAY_ANSWERS, REPLAYS, type ReplayAnswerDoc, type ReplayDoc } from '../../projections/replays/replaysProjection.js';
import { countReplayEvents } from '../../workers/countReplayEvents.js';
import { authenticator, authOf } from '../authenticate.js';
import { notFound } from '../errors.js';
import type { HttpServices } from '../services.js';
import { errorBody, errorResponses, listQuery } from './schemas.js';

const draftInput = z.strictObject({
  basedOnAgentId: z.uuid().nullable().optional(),
  systemPrompt: z.string().trim().min(1).max(AGENT_LIMITS.systemPrompt),
  model: z
    .string()
    .trim()
    .max(AGENT_LIMITS.model)
    .nullable()
    .optional()
    .transform((v) => (v === '' || v === undefined ? null : v)),
  temperature: z.number().min(0).max(2),
  useKnowledgeBase: z.boolean(),
  handoffMessage: z.string().trim().min(1).max(AGENT_LIMITS.handoffMessage).optional(),
});
const selection = {
  draft: draftInput,
  conversationIds: z.array(z.uuid()).min(1).max(REPLAY_LIMITS.conversations),
};

const estimateSchema = z.object({
  messages: z.number().int(),
  conversations: z.array(z.object({ conversationId: z.string(), messages: z.number().int() })),
  inputTokens: z.number().int(),
  outputTokens: z.number().int(),
  costMicros: z.number().int(),
  provider: z.enum(['builtin', 'openai']),
  model: z.string(),
});

const replaySchema = z.object({
  id: z.uuid(),
  status: z.enum(['running', 'completed', 'cancelled', 'failed']),
  draft: replayDraftSchema,
  provider: z.enum(['builtin', 'openai']),
  model: z.string(),
  conversations: z.array(z.object({ conversationId: z.string(), messages: z.number().int() })),
  progress: z.object({ done: z.number().int(), total: z.number().int() }),
  failedAnswers: z.number().int(),
  estimatedCostMicros: z.number().int(),
  spentCostMicros: z.number().int(),
  inputTokens: z.number().int(),
  outputTokens: z.number().int(),
  failure: z.object({ reason: z.string(), message: z.string() }).nullable(),
  requestedBy: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  finishedAt: z.string().nullable(),
});

const answerSchema = z.object({
  conversationId: z.string(),
  turn: z.number().int(),
  messageIds: z.array(z.string()),
  customerText: z.string(),
  customerAt: z.string(),
  recorded: recordedAnswerSchema,
  draft: draftAnswerSchema,
  at: z.string(),
});

const replayView = (r: ReplayDoc): z.infer<typeof replaySchema> => ({
  id: r.id,
  status: r.status,
  draft: r.draft,
  provider: r.llm.kind,
  model: r.llm.model,
  conversations: r.conversations.map((c) => ({ conversationId: c.conversationId, messages: c.turns })),
  progress: { done: r.done, total: r.total },
  failedAnswers: r.failedAnswers,
  estimatedCostMicros: r.estimatedCostMicros,
  spentCostMicros: r.spentCostMicros,
  inputTokens: r.inputTokens,
  outputTokens: r.outputTokens,
  failure: r.failure,
  requestedBy: r.requestedBy,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
  finishedAt: r.finishedAt,
});

const answerView = (a: ReplayAnswerDoc): z.infer<typeof answerSchema> => ({
  conversationId: a.conversationId,
  turn: a.turn,
  messageIds: a.messageIds,
  customerText: a.customerText,
  customerAt: a.customerAt,
  recorded: a.recorded,
  draft: a.draft,
  at: a.at,
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const idParams = z.object({ id: z.string().max(64) });

/**
 * Replay evaluations: POST /api/replays/estimate, POST /api/replays (with the confirmed estimate),
 * GET /api/replays, GET /api/replays/:id (with its answers), POST /api/replays/:id/cancel.
 */
export function replayRoutes(services: HttpServices): FastifyPluginAsyncZod {
  const deps = { ...services.commands, pricing: services.config.pricing };
  return async (app) => {
    app.addHook('onRequest', authenticator(services));
    const security = [{ bearer: [] }];
    const tags = ['replays'];

    /** The draft as stored: an agent it starts from must be the company's own. */
    const draftOf = async (companyId: string, input: z.infer<typeof draftInput>): Promise<ReplayDraft> => {
      const basedOnAgentId = input.basedOnAgentId?.toLowerCase() ?? null;
      if (basedOnAgentId && !(await loadAgent(services.commands.eventStore, companyId, basedOnAgentId))) throw notFound('Agent');
      return {
        basedOnAgentId,
        systemPrompt: input.systemPrompt,
        model: input.model,
        temperature: input.temperature,
        useKnowledgeBase: input.useKnowledgeBase,
        handoffMessage: input.handoffMessage ?? DEFAULT_AGENT_HANDOFF_MESSAGE,
      };
    };
    const loadReplay = async (companyId: string, raw: string) => {
      if (!UUID.test(raw)) throw notFound('Replay');
      const doc = await services.readStore.get<ReplayDoc>(REPLAYS, raw.toLowerCase());
      if (!doc || doc.companyId !== companyId) throw notFound('Replay');
      return doc;
    };

    app.post(
      '/api/replays/estimate',
      {
        schema: {
          tags,
          security,
          description:
            `How many customer messages a replay of these conversations (at most ${REPLAY_LIMITS.conversations}; each replays its last ` +
            `${REPLAY_LIMITS.turnsPerConversation} customer turns at most) would answer with the draft, and what it would cost (micro-dollars; 0 on the builtin provider). Nothing is charged.`,
          body: z.strictObject(selection),
          response: { 200: z.object({ estimate: estimateSchema }), ...errorResponses },
        },
      },
      async (request) => {
        const companyId = authOf(request).companyId;
        const draft = await draftOf(companyId, request.body.draft);
        const e = await estimateReplay(deps, { companyId, draft, conversationIds: request.body.conversationIds });
        return {
          estimate: {
            messages: e.messages,
            conversations: e.conversations.map((c) => ({ conversationId: c.conversationId, messages: c.turns })),
            inputTokens: e.inputTokens,
            outputTokens: e.outputTokens,
            costMicros: e.costMicros,
            provider: e.llm.kind,
            model: e.llm.model,
          },
        };
      },
    );

    app.post(
      '/api/replays',
      {
        schema: {
          tags,
          security,
          description:
            'Starts a replay. `confirmedCostMicros`: the estimate the user confirmed; when the fresh estimate is higher, 409 CONFLICT names it and nothing starts. ' +
            'The answers are charged as they are spent; nothing is sent to customers and no conversation is written.',
          body: z.strictObject({ ...selection, confirmedCostMicros: z.number().int().min(0) }),
          response: { 201: z.object({ replay: replaySchema }), 409: errorBody, ...errorResponses },
        },
      },
      async (request, reply) => {
        const auth = authOf(request);
        const draft = await draftOf(auth.companyId, request.body.draft);
        const { replayId, position } = await requestReplay(deps, {
          companyId: auth.companyId,
          userId: auth.userId,
          draft,
          conversationIds: request.body.conversationIds,
          confirmedCostMicros: request.body.confirmedCostMicros,
        });
        await services.waitForProjections(position);
        return reply.status(201).send({ replay: replayView(await loadReplay(auth.companyId, replayId)) });
      },
    );

    app.get(
      '/api/replays',
      { schema: { tags, security, querystring: listQuery, response: { 200: z.object({ replays: z.array(replaySchema), nextCursor: z.string().nullable() }), ...errorResponses } } },
      async (request) => {
        const page = await services.readStore.find<ReplayDoc>(REPLAYS, {
          where: { companyId: authOf(request).companyId },
          orderBy: [{ field: 'createdAt', direction: 'desc' }],
          limit: request.query.limit,
          cursor: request.query.cursor ?? null,
        });
        return { replays: page.items.map(replayView), nextCursor: page.nextCursor };
      },
    );

    app.get(
      '/api/replays/:id',
      {
        schema: {
          tags,
          security,
          params: idParams,
          querystring: listQuery,
          description: 'The replay with its progress, and its answers so far in conversation and turn order (keyset cursor over the answers).',
          response: { 200: z.object({ replay: replaySchema, answers: z.array(answerSchema), nextCursor: z.string().nullable() }), ...errorResponses },
        },
      },
      async (request) => {
        const replay = await loadReplay(authOf(request).companyId, request.params.id);
        const page = await services.readStore.find<ReplayAnswerDoc>(REPLAY_ANSWERS, {
          where: { replayId: replay.id },
          orderBy: [{ field: 'order', direction: 'asc' }],
          limit: request.query.limit,
          cursor: request.query.cursor ?? null,
        });
        return { replay: replayView(replay), answers: page.items.map(answerView), nextCursor: page.nextCursor };
      },
    );

    app.post(
      '/api/replays/:id/cancel',
      {
        schema: {
          tags,
          security,
          params: idParams,
          description: 'Stops a running replay: no further LLM call starts and calls in flight are aborted. Cancelling a cancelled replay is a no-op; a finished one is 409 CONFLICT.',
          response: { 200: z.object({ replay: replaySchema }), 409: errorBody, ...errorResponses },
        },
      },
      async (request) => {
        const auth = authOf(request);
        const replay = await loadReplay(auth.companyId, request.params.id);
        const result = await cancelReplay(services.commands, { companyId: auth.companyId, userId: auth.userId, replayId: replay.id });
        if (services.replayMetrics) countReplayEvents(services.replayMetrics, result.events);
        await services.waitForProjections(result.position);
        const view = replayView(await loadReplay(auth.companyId, replay.id));
        // A second cancel appends nothing: the stream, not a read model that may lag, says it is cancelled.
        return { replay: { ...view, status: result.state.status === 'none' ? view.status : result.state.status } };
      },
    );
  };
}
