import { z } from 'zod';
import type { ReplayEstimate } from '../../commands/replays/replays.js';
import { AGENT_LIMITS } from '../../domain/agents/events.js';
import { answerThresholdSchema } from '../../domain/answers/evidence.js';
import { REPLAY_LIMITS, draftAnswerSchema, recordedAnswerSchema, replayDraftSchema } from '../../domain/replays/events.js';
import type { ReplayAnswerDoc, ReplayDoc } from '../../projections/replays/replaysProjection.js';
import { bearerSecurity as security, errorBody, errorResponses, idempotencyKeyHeaders, listQuery } from './schemas.js';

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
  /** The answer setting to replay with (strict | balanced | lenient); default: the agent's it is based on, else balanced. */
  answerThreshold: answerThresholdSchema.optional(),
  /** Whether a grounded model may answer citing no passage; default: the agent's it is based on, else false. */
  generalAnswers: z.boolean().optional(),
});
export type DraftInput = z.infer<typeof draftInput>;

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

export const replayView = (r: ReplayDoc): z.infer<typeof replaySchema> => ({
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

export const answerView = (a: ReplayAnswerDoc): z.infer<typeof answerSchema> => ({
  conversationId: a.conversationId,
  turn: a.turn,
  messageIds: a.messageIds,
  customerText: a.customerText,
  customerAt: a.customerAt,
  recorded: a.recorded,
  draft: a.draft,
  at: a.at,
});

export const estimateView = (e: ReplayEstimate): z.infer<typeof estimateSchema> => ({
  messages: e.messages,
  conversations: e.conversations.map((c) => ({ conversationId: c.conversationId, messages: c.turns })),
  inputTokens: e.inputTokens,
  outputTokens: e.outputTokens,
  costMicros: e.costMicros,
  provider: e.llm.kind,
  model: e.llm.model,
});

const tags = ['replays'];
const idParams = z.object({ id: z.string().max(64) });

export const estimateReplaySchema = {
  tags,
  security,
  description:
    `How many customer messages a replay of these conversations (at most ${REPLAY_LIMITS.conversations}; each replays its last ` +
    `${REPLAY_LIMITS.turnsPerConversation} customer turns at most) would answer with the draft, and what it would cost (micro-dollars; 0 on the builtin provider). Nothing is charged.`,
  body: z.strictObject(selection),
  response: { 200: z.object({ estimate: estimateSchema }), ...errorResponses },
};

export const startReplaySchema = {
  tags,
  security,
  headers: idempotencyKeyHeaders,
  description:
    'Starts a replay. `confirmedCostMicros`: the estimate the user confirmed; when the fresh estimate is higher, 409 CONFLICT names it and nothing starts. ' +
    'The answers are charged as they are spent; nothing is sent to customers and no conversation is written.',
  body: z.strictObject({ ...selection, confirmedCostMicros: z.number().int().min(0) }),
  response: { 201: z.object({ replay: replaySchema }), 409: errorBody, ...errorResponses },
};

export const listReplaysSchema = { tags, security, querystring: listQuery, response: { 200: z.object({ replays: z.array(replaySchema), nextCursor: z.string().nullable() }), ...errorResponses } };

export const getReplaySchema = {
  tags,
  security,
  params: idParams,
  querystring: listQuery,
  description: 'The replay with its progress, and its answers so far in conversation and turn order (keyset cursor over the answers).',
  response: { 200: z.object({ replay: replaySchema, answers: z.array(answerSchema), nextCursor: z.string().nullable() }), ...errorResponses },
};

export const cancelReplaySchema = {
  tags,
  security,
  params: idParams,
  description: 'Stops a running replay: no further LLM call starts and calls in flight are aborted. Cancelling a cancelled replay is a no-op; a finished one is 409 CONFLICT.',
  response: { 200: z.object({ replay: replaySchema }), 409: errorBody, ...errorResponses },
};
