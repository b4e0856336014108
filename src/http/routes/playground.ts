import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { loadAgent } from '../../commands/agents/queries.js';
import { loadOwnPlayground, readPlaygroundEvents, startPlayground } from '../../commands/playground/playgroundSessions.js';
import { answerProvenanceSchema } from '../../domain/answers/provenance.js';
import { PLAYGROUND_LIMITS } from '../../domain/playground/events.js';
import { playgroundTurns, type PlaygroundTurn } from '../../domain/playground/turns.js';
import type { LlmPassage } from '../../ports/llm.js';
import { createFairSlots } from '../../workers/fairSlots.js';
import { answerPlaygroundQuestion } from '../../workers/playgroundAnswer.js';
import { AGENTS, type AgentDoc } from '../../projections/agents/agentsProjection.js';
import { PLAYGROUND_SESSIONS, type PlaygroundSessionDoc } from '../../projections/playgroundSessions/playgroundSessionsProjection.js';
import { authenticator, authOf } from '../authenticate.js';
import { notFound } from '../errors.js';
import type { HttpServices } from '../services.js';
import { errorBody, errorResponses, listQuery } from './schemas.js';

/**
 * The agent playground (README "Agent playground"): a teammate chats with a saved agent without a platform.
 * Any teammate role may use it; everything is scoped to the caller's company (another company's agent or
 * session: 404). The model is called while the request waits, within the company's share of this process's
 * playground calls.
 */

export interface PlaygroundRouteOptions {
  /** Knowledge-base passages with their text and chunk (the in-memory index). */
  searchKnowledge(companyId: string, query: string, limit: number): Promise<LlmPassage[]>;
}

const turnSchema = z.object({
  question: z.object({ id: z.uuid(), text: z.string(), at: z.string() }),
  answer: z
    .object({
      id: z.uuid(),
      text: z.string(),
      model: z.string(),
      inputTokens: z.number().int(),
      outputTokens: z.number().int(),
      handoff: z.boolean().describe('the answer is the agent’s handoff message: with a customer, a human would take over'),
      provenance: answerProvenanceSchema.describe('knowledge-base sources, latency and cost of the answer'),
      at: z.string(),
    })
    .nullable()
    .describe('null while the answer is on its way, or when it failed'),
  failure: z.object({ reason: z.string(), at: z.string() }).nullable(),
});
const sessionSchema = z.object({
  id: z.uuid(),
  agentId: z.uuid(),
  startedAt: z.string(),
  questionCount: z.number().int(),
  questionLimit: z.number().int(),
});
const sessionResponse = z.object({ session: sessionSchema, turns: z.array(turnSchema) });
const sessionSummarySchema = sessionSchema.extend({
  agentName: z.string().nullable().describe('the agent’s current name; null once the agent is deleted'),
  startedBy: z.string().describe('`user:<id>` of the teammate who started it'),
  firstQuestion: z.string().nullable().describe('the first question, shortened to 120 characters; null before any'),
  lastQuestionAt: z.string().nullable(),
  lastActivityAt: z.string().describe('the newest question, answer or failure (startedAt before any): the list’s order'),
});
const sessionListQuery = listQuery.extend({ agentId: z.uuid().optional().describe('only the sessions with this agent') });
const uuidParam = (name: string) => z.object({ [name]: z.string().max(64) });
const isUuid = (s: string) => z.uuid().safeParse(s).success;

const turnView = (t: PlaygroundTurn): z.infer<typeof turnSchema> => t;

export function playgroundRoutes(services: HttpServices, options: PlaygroundRouteOptions): FastifyPluginAsyncZod {
  // LLM calls the playground makes at once in this process, and per company (PLAYGROUND_CONCURRENCY, PLAYGROUND_COMPANY_CONCURRENCY).
  const concurrency = services.config.playgroundConcurrency;
  const slots = createFairSlots(concurrency);
  const security = [{ bearer: [] }];
  const tags = ['playground'];

  const sessionView = async (companyId: string, sessionId: string) => {
    const state = await loadOwnPlayground(services.commands.eventStore, companyId, sessionId);
    const events = await readPlaygroundEvents(services.commands.eventStore, sessionId);
    const started = events.find((e) => e.type === 'PlaygroundStarted');
    return {
      session: {
        id: sessionId,
        agentId: state.agentId,
        startedAt: started?.type === 'PlaygroundStarted' ? started.data.at : '',
        questionCount: state.questions,
        questionLimit: PLAYGROUND_LIMITS.questions,
      },
      turns: playgroundTurns(events).map(turnView),
    };
  };

  /** The page's sessions with their agents' current names (one read per distinct agent, at most a page's worth). */
  const summaries = async (docs: PlaygroundSessionDoc[]) => {
    const names = new Map<string, string | null>();
    for (const agentId of new Set(docs.map((d) => d.agentId))) {
      const agent = await services.readStore.get<AgentDoc>(AGENTS, agentId);
      names.set(agentId, agent?.name ?? null);
    }
    return docs.map((d) => ({
      id: d.id,
      agentId: d.agentId,
      agentName: names.get(d.agentId) ?? null,
      startedBy: d.startedBy,
      startedAt: d.startedAt,
      questionCount: d.questionCount,
      questionLimit: PLAYGROUND_LIMITS.questions,
      firstQuestion: d.firstQuestion,
      lastQuestionAt: d.lastQuestionAt,
      lastActivityAt: d.lastActivityAt,
    }));
  };

  return async (app) => {
    app.addHook('onRequest', authenticator(services));

    app.get(
      '/api/playground',
      {
        schema: {
          tags,
          summary: 'Recent playground sessions of the company',
          description: 'Newest activity first (keyset cursor), every teammate’s sessions of the caller’s company; `agentId` keeps one agent’s. Open one with GET /api/playground/:sessionId.',
          security,
          querystring: sessionListQuery,
          response: { 200: z.object({ sessions: z.array(sessionSummarySchema), nextCursor: z.string().nullable() }), ...errorResponses },
        },
      },
      async (request) => {
        const { agentId, limit, cursor } = request.query;
        const page = await services.readStore.find<PlaygroundSessionDoc>(PLAYGROUND_SESSIONS, {
          where: { companyId: authOf(request).companyId, ...(agentId ? { agentId: agentId.toLowerCase() } : {}) },
          orderBy: [{ field: 'lastActivityAt', direction: 'desc' }],
          limit,
          cursor: cursor ?? null,
        });
        return { sessions: await summaries(page.items), nextCursor: page.nextCursor };
      },
    );

    app.post(
      '/api/agents/:id/playground',
      {
        schema: {
          tags,
          summary: 'Start a playground session with an agent',
          description:
            'A new, empty playground session with the agent (its saved configuration; active or not). Nothing in a playground reaches a customer or a platform, and it is not a conversation (not in the inbox, not counted in analytics).',
          security,
          params: uuidParam('id'),
          response: { 201: sessionResponse, ...errorResponses },
        },
      },
      async (request, reply) => {
        const auth = authOf(request);
        const agentId = request.params.id as string;
        if (!isUuid(agentId) || !(await loadAgent(services.commands.eventStore, auth.companyId, agentId))) throw notFound('Agent');
        const { sessionId, position } = await startPlayground(services.commands, auth, agentId);
        // The session list shows it as soon as the teammate has it.
        await services.waitForProjections(position);
        return reply.status(201).send(await sessionView(auth.companyId, sessionId));
      },
    );

    app.get(
      '/api/playground/:sessionId',
      {
        schema: { tags, summary: 'A playground session with its questions and answers', security, params: uuidParam('sessionId'), response: { 200: sessionResponse, ...errorResponses } },
      },
      async (request) => {
        const sessionId = request.params.sessionId as string;
        if (!isUuid(sessionId)) throw notFound('Playground session');
        return sessionView(authOf(request).companyId, sessionId);
      },
    );

    app.post(
      '/api/playground/:sessionId/messages',
      {
        schema: {
          tags,
          summary: 'Ask the agent a question in the playground',
          description:
            `Answers while the request waits (the LLM timeout applies), with the agent's saved configuration, the company's LLM settings and knowledge base, and the session's last turns. ` +
            `200 with the turn: the answer with its sources, tokens, latency and cost; charged to the credits like a customer reply. ` +
            `402 \`credits_exhausted\` when a paid provider is configured and the credits are spent; 429 \`RATE_LIMITED\` (Retry-After) when the company already has ${concurrency.perCompany} playground questions waiting for the model; ` +
            `502 \`LLM_ERROR\` when the model fails or times out (the failure is recorded in the session); 409 \`CONFLICT\` once the session holds ${PLAYGROUND_LIMITS.questions} questions. ` +
            `A client that disconnects cancels the model call.`,
          security,
          params: uuidParam('sessionId'),
          body: z.strictObject({
            text: z.string().trim().min(1, 'must not be empty').max(PLAYGROUND_LIMITS.text, `must be at most ${PLAYGROUND_LIMITS.text} characters`),
          }),
          response: { 200: z.object({ turn: turnSchema }), 402: errorBody, 409: errorBody, 502: errorBody, ...errorResponses },
        },
      },
      async (request, reply) => {
        const auth = authOf(request);
        const sessionId = request.params.sessionId as string;
        if (!isUuid(sessionId)) throw notFound('Playground session');
        // A teammate who leaves (closes the tab, aborts the fetch) does not keep a model call running: the response
        // closing before it was written means the client went away.
        const controller = new AbortController();
        const onClose = () => {
          if (!reply.raw.writableFinished) controller.abort();
        };
        reply.raw.once('close', onClose);
        try {
          const turn = await answerPlaygroundQuestion(
            {
              ...services.commands,
              llmResolver: services.llmResolver,
              searchKnowledge: options.searchKnowledge,
              pricing: services.config.pricing,
              llmRetryDelaysMs: [],
              slots,
            },
            auth,
            sessionId,
            request.body.text,
            controller.signal,
          );
          return { turn: turnView(turn) };
        } finally {
          reply.raw.off('close', onClose);
        }
      },
    );
  };
}
