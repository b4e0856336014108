import { z } from 'zod';
import type { LiveAgent } from '../../domain/agents/state.js';
import { ACTION_LIMITS } from '../../domain/actions/definition.js';
import { AGENT_LIMITS, DEFAULT_AGENT_AFTER_HOURS_MESSAGE, MAX_HAND_BACK_MINUTES } from '../../domain/agents/events.js';
import { answerThresholdSchema, DEFAULT_ANSWER_THRESHOLD } from '../../domain/answers/evidence.js';
import type { AgentDoc } from '../../projections/agents/agentsProjection.js';
import { bearerSecurity as security, errorResponses, listQuery } from './schemas.js';

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
  /** Whether a model citing the knowledge base may also answer without a passage (false: such answers are handed off). */
  generalAnswers: z.boolean(),
  /** Added to a handoff outside business hours; `{{back}}` becomes when people are back. */
  afterHoursMessage: z.string(),
  /** Minutes after the last handoff or teammate message after which a customer's message gives the conversation back to the AI; null: it stays with people until resumed. */
  handBackAfterMinutes: z.number().int().nullable(),
  /** The company's actions (/api/actions) it may call while it answers, in order; the builtin provider calls none. */
  actionIds: z.array(z.uuid()),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type AgentView = z.infer<typeof agentSchema>;

export const writable = {
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
  generalAnswers: z.boolean(),
  afterHoursMessage: z.string().trim().min(1).max(AGENT_LIMITS.afterHoursMessage),
  handBackAfterMinutes: z.number().int().min(1).max(MAX_HAND_BACK_MINUTES).nullable(),
  actionIds: z
    .array(z.uuid().transform((id) => id.toLowerCase()))
    .max(ACTION_LIMITS.perAgent)
    .refine((ids) => new Set(ids).size === ids.length, 'an action is listed once'),
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
    generalAnswers: a.generalAnswers ?? false,
    afterHoursMessage: a.afterHoursMessage ?? DEFAULT_AGENT_AFTER_HOURS_MESSAGE,
    handBackAfterMinutes: a.handBackAfterMinutes ?? null,
    actionIds: a.actionIds ?? [],
    createdAt: a.createdAt,
    updatedAt: a.updatedAt,
  };
}

const tags = ['agents'];
const idParams = z.object({ id: z.string().max(64) });

export const listAgentsSchema = {
  tags,
  security,
  querystring: listQuery,
  response: { 200: z.object({ agents: z.array(agentSchema), nextCursor: z.string().nullable() }), ...errorResponses },
};

/** What a teammate may write on an agent: all of it when creating (name required), any of it when updating. */
const agentBody = z.strictObject({
  name: writable.name,
  systemPrompt: writable.systemPrompt.optional(),
  model: writable.model.optional(),
  temperature: writable.temperature.optional(),
  useKnowledgeBase: writable.useKnowledgeBase.optional(),
  active: writable.active.optional(),
  handoffMessage: writable.handoffMessage.optional(),
  answerThreshold: writable.answerThreshold.optional(),
  generalAnswers: writable.generalAnswers.optional(),
  afterHoursMessage: writable.afterHoursMessage.optional(),
  handBackAfterMinutes: writable.handBackAfterMinutes.optional(),
  /** Each must be one of the company's actions (400 VALIDATION_ERROR otherwise). */
  actionIds: writable.actionIds.optional(),
});

export const createAgentSchema = {
  tags,
  security,
  body: agentBody,
  response: { 201: z.object({ agent: agentSchema }), ...errorResponses },
};

export const getAgentSchema = { tags, security, params: idParams, response: { 200: z.object({ agent: agentSchema }), ...errorResponses } };

export const updateAgentSchema = {
  tags,
  security,
  params: idParams,
  body: agentBody.partial(),
  response: { 200: z.object({ agent: agentSchema }), ...errorResponses },
};

export const deleteAgentSchema = { tags, security, params: idParams, response: { 204: z.null(), ...errorResponses } };
