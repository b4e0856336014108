import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { createAgent, deleteAgent, updateAgent } from '../../commands/agents/agents.js';
import { loadAgent } from '../../commands/agents/queries.js';
import { type LiveAgent } from '../../domain/agents/state.js';
import { expectActive } from '../../domain/lifecycle.js';
import { AGENT_LIMITS } from '../../domain/agents/events.js';
import { answerThresholdSchema, DEFAULT_ANSWER_THRESHOLD } from '../../domain/answers/evidence.js';
import { AGENTS, type AgentDoc } from '../../projections/agents/agentsProjection.js';
import { authenticator, authOf } from '../authenticate.js';
import { notFound } from '../errors.js';
import type { HttpServices } from '../services.js';
import { errorResponses, listQuery } from './schemas.js';

export const agentSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  systemPrompt: z.string(),
  model: z.string().nullable(),
  temperature: z.number(),
  useKnowledgeBase: z.boolean(),
  active: z.boolean(),
  handoffMessage: z.string(),
  /** How sure the builtin agent must be to answer: strict (hands off more), balanced (default), lenient (answers more). */
  answerThreshold: answerThresholdSchema,
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type AgentView = z.infer<typeof agentSchema>;

const writable = {
  name: z.string().trim().min(1).max(AGENT_LIMITS.name),
  systemPrompt: z.string().trim().min(1).max(AGENT_LIMITS.systemPrompt),
  /** null (or omitted on create): use the model of the company's LLM configuration. */
  model: z
    .string()
    .trim()
    .max(AGENT_LIMITS.model)
    .nullable()
    .transform((v) => (v === '' ? null : v)),
  temperature: z.number().min(0).max(2),
  useKnowledgeBase: z.boolean(),
  active: z.boolean(),
  handoffMessage: z.string().trim().min(1).max(AGENT_LIMITS.handoffMessage),
  answerThreshold: answerThresholdSchema,
};

const isLive = (a: AgentDoc | LiveAgent): a is LiveAgent => 'agentId' in a;

export function agentView(a: AgentDoc | LiveAgent): AgentView {
  return {
    id: isLive(a) ? a.agentId : a.id,
    name: a.name,
    systemPrompt: a.systemPrompt,
    model: a.model,
    temperature: a.temperature,
    useKnowledgeBase: a.useKnowledgeBase,
    active: a.active,
    handoffMessage: a.handoffMessage,
    answerThreshold: a.answerThreshold ?? DEFAULT_ANSWER_THRESHOLD,
    createdAt: a.createdAt,
    updatedAt: a.updatedAt,
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const idParams = z.object({ id: z.string().max(64) });
/** Anything but a UUID cannot name an agent: 404 like any other unknown id. */
const parseId = (raw: string) => {
  if (!UUID.test(raw)) throw notFound('Agent');
  return raw.toLowerCase();
};

/** GET/POST /api/agents, GET/PATCH/DELETE /api/agents/:id. */
export function agentRoutes(services: HttpServices): FastifyPluginAsyncZod {
  const deps = services.commands;
  return async (app) => {
    app.addHook('onRequest', authenticator(services));
    const security = [{ bearer: [] }];
    const tags = ['agents'];

    app.get(
      '/api/agents',
      {
        schema: {
          tags,
          security,
          querystring: listQuery,
          response: { 200: z.object({ agents: z.array(agentSchema), nextCursor: z.string().nullable() }), ...errorResponses },
        },
      },
      async (request) => {
        const page = await services.readStore.find<AgentDoc>(AGENTS, {
          where: { companyId: authOf(request).companyId },
          orderBy: [{ field: 'createdAt', direction: 'asc' }],
          limit: request.query.limit,
          cursor: request.query.cursor ?? null,
        });
        return { agents: page.items.map(agentView), nextCursor: page.nextCursor };
      },
    );

    app.post(
      '/api/agents',
      {
        schema: {
          tags,
          security,
          body: z.strictObject({
            name: writable.name,
            systemPrompt: writable.systemPrompt.optional(),
            model: writable.model.optional(),
            temperature: writable.temperature.optional(),
            useKnowledgeBase: writable.useKnowledgeBase.optional(),
            active: writable.active.optional(),
            handoffMessage: writable.handoffMessage.optional(),
            answerThreshold: writable.answerThreshold.optional(),
          }),
          response: { 201: z.object({ agent: agentSchema }), ...errorResponses },
        },
      },
      async (request, reply) => {
        const auth = authOf(request);
        const result = await createAgent(deps, { ...request.body, companyId: auth.companyId, userId: auth.userId });
        await services.waitForProjections(result.position);
        return reply.status(201).send({ agent: agentView(expectActive(result.state, 'agent')) });
      },
    );

    app.get(
      '/api/agents/:id',
      { schema: { tags, security, params: idParams, response: { 200: z.object({ agent: agentSchema }), ...errorResponses } } },
      async (request) => {
        const agent = await loadAgent(services.commands.eventStore, authOf(request).companyId, parseId(request.params.id));
        if (!agent) throw notFound('Agent');
        return { agent: agentView(agent) };
      },
    );

    app.patch(
      '/api/agents/:id',
      {
        schema: {
          tags,
          security,
          params: idParams,
          body: z.strictObject({
            name: writable.name.optional(),
            systemPrompt: writable.systemPrompt.optional(),
            model: writable.model.optional(),
            temperature: writable.temperature.optional(),
            useKnowledgeBase: writable.useKnowledgeBase.optional(),
            active: writable.active.optional(),
            handoffMessage: writable.handoffMessage.optional(),
            answerThreshold: writable.answerThreshold.optional(),
          }),
          response: { 200: z.object({ agent: agentSchema }), ...errorResponses },
        },
      },
      async (request) => {
        const auth = authOf(request);
        const result = await updateAgent(deps, { companyId: auth.companyId, userId: auth.userId, agentId: parseId(request.params.id), changes: request.body });
        await services.waitForProjections(result.position);
        return { agent: agentView(expectActive(result.state, 'agent')) };
      },
    );

    app.delete(
      '/api/agents/:id',
      { schema: { tags, security, params: idParams, response: { 204: z.null(), ...errorResponses } } },
      async (request, reply) => {
        const auth = authOf(request);
        const result = await deleteAgent(deps, { companyId: auth.companyId, userId: auth.userId, agentId: parseId(request.params.id) });
        await services.waitForProjections(result.position);
        return reply.status(204).send(null);
      },
    );
  };
}
