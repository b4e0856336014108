import { z } from 'zod';
import { RELEASE_CHECK_LIMITS } from '../../domain/agents/releaseGate.js';
import { testRunSchema } from './agentTests.schemas.js';
import { bearerSecurity as security, errorBody, errorResponses, idempotencyKeyHeaders, listQuery } from './schemas.js';

const tags = ['agents'];
const idParams = z.object({ id: z.string().max(64) });
const errors = { ...errorResponses, 402: errorBody, 409: errorBody };

const selection = {
  /** The version to check; the draft when omitted. */
  version: z.number().int().min(1).optional(),
  /** How many of the agent's most recent conversations to replay. */
  conversations: z.number().int().min(0).max(RELEASE_CHECK_LIMITS.maxConversations).default(RELEASE_CHECK_LIMITS.defaultConversations),
};

const estimateSchema = z.object({
  version: z.number().int(),
  conversations: z.array(z.object({ conversationId: z.uuid(), messages: z.number().int() })),
  /** The replay's customer turns. */
  messages: z.number().int(),
  /** The test suite's cases and their turns, and what answering them costs. */
  suite: z.object({ cases: z.number().int(), messages: z.number().int(), costMicros: z.number().int() }),
  /** The replay and the suite together: what `confirmedCostMicros` confirms. */
  costMicros: z.number().int(),
  provider: z.enum(['builtin', 'openai']),
  model: z.string(),
});

export const estimateReleaseCheckSchema = {
  tags,
  security,
  description: 'What a release check’s replay of the agent’s most recent conversations would answer and cost (micro-dollars; 0 on the builtin provider). Nothing is charged. Owners and admins.',
  params: idParams,
  body: z.strictObject(selection).nullish(),
  response: { 200: z.object({ estimate: estimateSchema }), ...errors },
};

const failedCase = z.object({ caseId: z.uuid(), name: z.string() });
export const releaseCheckSchema = z.object({
  id: z.uuid(),
  agentId: z.uuid(),
  version: z.number().int(),
  status: z.enum(['running', 'finished']),
  /** passed: null while running; the required cases failing so far. */
  gate: z.object({ passed: z.boolean().nullable(), failedCases: z.array(failedCase) }),
  suite: testRunSchema,
  replay: z.object({ id: z.uuid(), status: z.enum(['running', 'completed', 'cancelled', 'failed']) }).nullable(),
  /** Conversations replayed (those with a customer turn). */
  conversations: z.number().int(),
  createdAt: z.string(),
  createdBy: z.string().nullable(),
});
export type ReleaseCheckView = z.infer<typeof releaseCheckSchema>;

const side = z.object({
  kind: z.enum(['agent', 'operator', 'unanswered', 'none', 'failed']),
  text: z.string().nullable(),
  handoff: z.boolean(),
  documentIds: z.array(z.string()),
  chars: z.number().int(),
  costMicros: z.number().int().nullable(),
});
export const releaseTurnSchema = z.object({
  conversationId: z.uuid(),
  turn: z.number().int(),
  customerText: z.string(),
  customerAt: z.string(),
  current: side,
  draft: side,
  changes: z.object({
    handoff: z.enum(['same', 'now_hands_off', 'no_longer_hands_off']),
    sourcesAdded: z.array(z.string()),
    sourcesRemoved: z.array(z.string()),
    lengthDelta: z.number().int(),
    costDeltaMicros: z.number().int().nullable(),
  }),
});

export const startReleaseCheckSchema = {
  tags,
  security,
  headers: idempotencyKeyHeaders,
  description:
    'Checks `version` (the draft when omitted) before it is published: its test cases on the builtin provider, and a replay over the agent’s most recent conversations on the company’s provider, both in the replay worker’s slots. ' +
    '`confirmedCostMicros`: the estimate the user confirmed (a paid replay above it is 409 CONFLICT and nothing starts). 202 with the check; poll it. Owners and admins.',
  params: idParams,
  body: z.strictObject({ ...selection, confirmedCostMicros: z.number().int().min(0).default(0) }).nullish(),
  response: { 202: z.object({ check: releaseCheckSchema }), ...errors },
};

export const getReleaseCheckSchema = {
  tags,
  security,
  description: 'The check, and its replayed turns side by side (current answer against the checked version’s, with what changed), keyset-paginated by `cursor`. Every role.',
  params: idParams.extend({ checkId: z.string().max(64) }),
  querystring: listQuery,
  response: { 200: z.object({ check: releaseCheckSchema, turns: z.array(releaseTurnSchema), nextCursor: z.string().nullable() }), ...errors },
};

/** The publish body's gate fields (agentVersions.schemas.ts publishSchema). */
export const publishGateFields = {
  /** The release check of this version the publish relies on. */
  releaseCheckId: z.uuid().optional(),
  /** Owners only: publish whatever the checks say; `reason` is required and recorded. */
  override: z.boolean().optional(),
};
