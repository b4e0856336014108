import { z } from 'zod';
import { answerProvenanceSchema } from '../../domain/answers/provenance.js';
import { PLAYGROUND_LIMITS } from '../../domain/playground/events.js';
import { playgroundTurns, type PlaygroundTurn } from '../../domain/playground/turns.js';
import type { PlaygroundSession } from '../../commands/playground/streamReads.js';
import type { PlaygroundSessionEntry } from '../../projections/playgroundSessions/queries.js';
import { bearerSecurity as security, errorBody, errorResponses, listQuery } from './schemas.js';

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
const sessionResponse = z.object({
  session: sessionSchema.extend({
    actions: z.enum(['mocked', 'live']).describe('mocked: the agent’s action calls get their sample responses; live: they reach the company’s endpoints'),
  }),
  turns: z.array(turnSchema),
});
const sessionSummarySchema = sessionSchema.extend({
  agentName: z.string().nullable().describe('the agent’s current name; null once the agent is deleted'),
  startedBy: z.string().describe('`user:<id>` of the teammate who started it'),
  firstQuestion: z.string().nullable().describe('the first question, shortened to 120 characters; null before any'),
  lastQuestionAt: z.string().nullable(),
  lastActivityAt: z.string().describe('the newest question, answer or failure (startedAt before any): the list’s order'),
});
const sessionListQuery = listQuery.extend({ agentId: z.uuid().optional().describe('only the sessions with this agent') });
const uuidParam = (name: string) => z.object({ [name]: z.string().max(64) });

export const turnView = (t: PlaygroundTurn): z.infer<typeof turnSchema> => t;

/** A session with its questions and answers, from its stream. */
export function playgroundSessionView(sessionId: string, { state, events }: PlaygroundSession): z.infer<typeof sessionResponse> {
  const started = events.find((e) => e.type === 'PlaygroundStarted');
  return {
    session: {
      id: sessionId,
      agentId: state.agentId,
      startedAt: started?.type === 'PlaygroundStarted' ? started.data.at : '',
      questionCount: state.questions,
      questionLimit: PLAYGROUND_LIMITS.questions,
      actions: state.actions,
    },
    turns: playgroundTurns(events).map(turnView),
  };
}

export const sessionSummaryView = ({ session: d, agentName }: PlaygroundSessionEntry): z.infer<typeof sessionSummarySchema> => ({
  id: d.id,
  agentId: d.agentId,
  agentName,
  startedBy: d.startedBy,
  startedAt: d.startedAt,
  questionCount: d.questionCount,
  questionLimit: PLAYGROUND_LIMITS.questions,
  firstQuestion: d.firstQuestion,
  lastQuestionAt: d.lastQuestionAt,
  lastActivityAt: d.lastActivityAt,
});

const tags = ['playground'];

export const listSessionsSchema = {
  tags,
  summary: 'Recent playground sessions of the company',
  description: 'Newest activity first (keyset cursor), every teammate’s sessions of the caller’s company; `agentId` keeps one agent’s. Open one with GET /api/playground/:sessionId.',
  security,
  querystring: sessionListQuery,
  response: { 200: z.object({ sessions: z.array(sessionSummarySchema), nextCursor: z.string().nullable() }), ...errorResponses },
};

export const startSessionSchema = {
  tags,
  summary: 'Start a playground session with an agent',
  description:
    'A new, empty playground session with the agent (its saved configuration; active or not). Nothing in a playground reaches a customer or a platform, and it is not a conversation (not in the inbox, not counted in analytics).',
  security,
  params: uuidParam('id'),
  body: z
    .strictObject({ actions: z.enum(['mocked', 'live']).default('mocked').describe('live: the agent’s action calls reach the company’s endpoints (owners and admins only); default mocked: sample responses') })
    .nullish(),
  response: { 201: sessionResponse, ...errorResponses },
};

export const getSessionSchema = { tags, summary: 'A playground session with its questions and answers', security, params: uuidParam('sessionId'), response: { 200: sessionResponse, ...errorResponses } };

/** `perCompany`: playground questions one company may have waiting for the model (PLAYGROUND_COMPANY_CONCURRENCY). */
export const askQuestionSchema = (perCompany: number) => ({
  tags,
  summary: 'Ask the agent a question in the playground',
  description:
    `Answers while the request waits (the LLM timeout applies), with the agent's saved configuration, the company's LLM settings and knowledge base, and the session's last turns. ` +
    `200 with the turn: the answer with its sources, tokens, latency and cost; charged to the credits like a customer reply. ` +
    `402 \`credits_exhausted\` when a paid provider is configured and the credits are spent; 429 \`RATE_LIMITED\` (Retry-After) when the company already has ${perCompany} playground questions waiting for the model; ` +
    `502 \`LLM_ERROR\` when the model fails or times out (the failure is recorded in the session); 409 \`CONFLICT\` once the session holds ${PLAYGROUND_LIMITS.questions} questions. ` +
    `A client that disconnects cancels the model call.`,
  security,
  params: uuidParam('sessionId'),
  body: z.strictObject({
    text: z.string().trim().min(1, 'must not be empty').max(PLAYGROUND_LIMITS.text, `must be at most ${PLAYGROUND_LIMITS.text} characters`),
  }),
  response: { 200: z.object({ turn: turnSchema }), 402: errorBody, 409: errorBody, 502: errorBody, ...errorResponses },
});
