import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { loadAgent } from '../../commands/agents/streamReads.js';
import { startPlayground } from '../../commands/playground/playgroundSessions.js';
import { loadPlaygroundSession } from '../../commands/playground/streamReads.js';
import type { LlmPassage } from '../../ports/llm.js';
import { listPlaygroundSessions } from '../../projections/playgroundSessions/queries.js';
import { createFairSlots, type FairSlots } from '../../shared/fairness/fairSlots.js';
import { answerPlaygroundQuestion } from '../../workers/playground/playgroundAnswer.js';
import { authenticator, authOf } from '../authenticate.js';
import { notFound } from '../errors.js';
import type { ActionCaller } from '../../ports/actionCaller.js';
import type { HttpServices } from '../services.js';
import { askQuestionSchema, getSessionSchema, listSessionsSchema, playgroundSessionView, sessionSummaryView, startSessionSchema, turnView } from './playground.schemas.js';
import type { ZodApp } from './zodApp.js';

/**
 * The agent playground (docs/api/playground-and-replays.md): a teammate chats with a saved agent without a platform.
 * Any teammate role may use it; everything is scoped to the caller's company (another company's agent or
 * session: 404). The model is called while the request waits, within the company's share of this process's
 * playground calls.
 */

export interface PlaygroundRouteOptions {
  /** Knowledge-base passages with their text and chunk (the in-memory index). */
  searchKnowledge(companyId: string, query: string, limit: number): Promise<LlmPassage[]>;
  /** Makes the agent's action calls in a `live` session. */
  actionCaller?: ActionCaller;
}

const isUuid = (s: string) => z.uuid().safeParse(s).success;

export function playgroundRoutes(services: HttpServices, options: PlaygroundRouteOptions): FastifyPluginAsyncZod {
  // LLM calls the playground makes at once in this process, and per company (PLAYGROUND_CONCURRENCY, PLAYGROUND_COMPANY_CONCURRENCY).
  const slots = createFairSlots(services.config.playgroundConcurrency);
  return async (app) => {
    app.addHook('onRequest', authenticator(services));
    registerSessions(app, services);
    registerQuestions(app, services, options, slots);
  };
}

function registerSessions(app: ZodApp, services: HttpServices): void {
  app.get('/api/playground', { schema: listSessionsSchema }, async (request) => {
    const { agentId, limit, cursor } = request.query;
    const page = await listPlaygroundSessions(services.readStore, authOf(request).companyId, { agentId }, { limit, cursor });
    return { sessions: page.items.map(sessionSummaryView), nextCursor: page.nextCursor };
  });

  app.post('/api/agents/:id/playground', { schema: startSessionSchema }, async (request, reply) => {
    const auth = authOf(request);
    const agentId = request.params.id as string;
    if (!isUuid(agentId) || !(await loadAgent(services.commands.eventStore, auth.companyId, agentId))) throw notFound('Agent');
    const actions = request.body?.actions ?? 'mocked';
    // Who may start a live session (and ask in one) is the playground decider's rule.
    const { sessionId, position } = await startPlayground(services.commands, auth, agentId, actions);
    // The session list shows it as soon as the teammate has it.
    await services.waitForProjections(position);
    return reply.status(201).send(playgroundSessionView(sessionId, await loadPlaygroundSession(services.commands.eventStore, auth.companyId, sessionId)));
  });

  app.get('/api/playground/:sessionId', { schema: getSessionSchema }, async (request) => {
    const sessionId = request.params.sessionId as string;
    if (!isUuid(sessionId)) throw notFound('Playground session');
    return playgroundSessionView(sessionId, await loadPlaygroundSession(services.commands.eventStore, authOf(request).companyId, sessionId));
  });
}

function registerQuestions(app: ZodApp, services: HttpServices, options: PlaygroundRouteOptions, slots: FairSlots): void {
  const answerDeps = {
    ...services.commands,
    llmResolver: services.llmResolver,
    searchKnowledge: options.searchKnowledge,
    pricing: services.config.pricing,
    llmRetryDelaysMs: [],
    slots,
    ...(options.actionCaller ? { actions: { caller: options.actionCaller, secretBox: services.secretBox } } : {}),
  };
  app.post('/api/playground/:sessionId/messages', { schema: askQuestionSchema(services.config.playgroundConcurrency.perCompany) }, async (request, reply) => {
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
      const turn = await answerPlaygroundQuestion(answerDeps, auth, sessionId, request.body.text, controller.signal);
      return { turn: turnView(turn) };
    } finally {
      reply.raw.off('close', onClose);
    }
  });
}
