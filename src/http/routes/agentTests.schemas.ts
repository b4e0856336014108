import { z } from 'zod';
import { actionMocksProblem, TEST_CASE_LIMITS, testExpectations } from '../../domain/agents/testCases/events.js';
import type { AgentTestCaseDoc } from '../../projections/agentTestCases/agentTestCasesProjection.js';
import { bearerSecurity as security, errorBody, errorResponses, idempotencyKeyHeaders, listQuery } from './schemas.js';

export const testCaseSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  turns: z.array(z.string()),
  expect: testExpectations,
  required: z.boolean(),
  /** Present on a case made from a conversation: the answer a person gave, or the accepted AI answer. */
  reference: z.object({ kind: z.enum(['operator', 'agent']), text: z.string(), conversationId: z.uuid() }).optional(),
  actionMocks: z.record(z.string(), z.json()).describe('what each named action answers in this case (others: their sample response)'),
  createdAt: z.string(),
  updatedAt: z.string(),
  updatedBy: z.string().nullable(),
});

export const testCaseView = (d: AgentTestCaseDoc): z.infer<typeof testCaseSchema> => ({
  id: d.id,
  name: d.name,
  turns: d.turns,
  expect: d.expect,
  required: d.required,
  ...(d.reference ? { reference: d.reference } : {}),
  actionMocks: (d.actionMocks ?? {}) as Record<string, z.infer<ReturnType<typeof z.json>>>,
  createdAt: d.createdAt,
  updatedAt: d.updatedAt,
  updatedBy: d.updatedBy,
});

/** Bounded (as a sample response is) before z.json() walks it: a 100,000-level mock was a 500, a 900 KB one was stored. */
const actionMocks = z
  .record(z.string().max(64), z.unknown())
  .superRefine((mocks, ctx) => {
    const problem = actionMocksProblem(mocks);
    if (problem !== null) ctx.addIssue({ code: 'custom', message: problem, abort: true });
  })
  .pipe(z.record(z.string().max(64), z.json()));

const matcher = z.strictObject({ kind: z.enum(['text', 'regex']), value: z.string().trim().min(1).max(TEST_CASE_LIMITS.matcherChars) });
const expectBody = z.strictObject({
    contains: z.array(matcher).max(TEST_CASE_LIMITS.matchers).optional(),
    notContains: z.array(matcher).max(TEST_CASE_LIMITS.matchers).optional(),
    handoff: z.boolean().optional(),
    citesDocumentId: z.uuid().optional(),
    maxChars: z.number().int().min(1).max(TEST_CASE_LIMITS.maxChars).optional(),
    judge: z.string().trim().min(1).max(TEST_CASE_LIMITS.judgeChars).optional(),
});
const body = z.strictObject({
  name: z.string().trim().min(1).max(TEST_CASE_LIMITS.name),
  turns: z.array(z.string().trim().min(1).max(TEST_CASE_LIMITS.turnChars)).min(1).max(TEST_CASE_LIMITS.turns),
  expect: expectBody,
  required: z.boolean().default(false),
  /** Kept when a case made from a conversation is edited (the dashboard sends it back). */
  reference: z.strictObject({ kind: z.enum(['operator', 'agent']), text: z.string().min(1).max(TEST_CASE_LIMITS.referenceChars), conversationId: z.uuid() }).optional(),
  /** By action name: what the action answers in this case instead of its sample response (never the endpoint). */
  actionMocks: actionMocks.optional(),
});

const tags = ['agents'];
const idParams = z.object({ id: z.string().max(64) });
const caseParams = idParams.extend({ caseId: z.string().max(64) });
const errors = { ...errorResponses, 409: errorBody };

export const listTestCasesSchema = {
  tags,
  security,
  description: 'The agent’s test cases, oldest first, keyset-paginated by `cursor`. Every role.',
  params: idParams,
  querystring: listQuery,
  response: { 200: z.object({ testCases: z.array(testCaseSchema), nextCursor: z.string().nullable() }), ...errors },
};

export const createTestCaseSchema = {
  tags,
  security,
  description: 'A customer message or a script of up to 5 customer turns, with expectations checked on the final answer. Every role.',
  params: idParams,
  body,
  response: { 201: z.object({ testCase: testCaseSchema }), ...errors },
};

export const caseFromConversationSchema = {
  tags,
  security,
  description:
    'A case made in one step from one of the company’s conversations: its customer turns (the last 5 up to the last one answered), and as reference the answer a person gave ' +
    'or the AI’s answer that did not hand off, with expectations proposed from it (`expect` replaces them). Another company’s conversation is 404. Every role.',
  params: idParams,
  body: z.strictObject({
    conversationId: z.uuid(),
    name: z.string().trim().min(1).max(TEST_CASE_LIMITS.name).optional(),
    required: z.boolean().default(false),
    expect: expectBody.optional(),
  }),
  response: { 201: z.object({ testCase: testCaseSchema }), ...errors },
};

export const replaceTestCaseSchema = { tags, security, params: caseParams, body, response: { 200: z.object({ testCase: testCaseSchema }), ...errors } };
export const deleteTestCaseSchema = { tags, security, params: caseParams, response: { 204: z.null(), ...errors } };

const checkSchema = z.object({
  check: z.string(),
  expected: z.string(),
  passed: z.boolean(),
  /** Judge checks only. */
  verdict: z.enum(['passed', 'failed', 'not_judged']).optional(),
  reason: z.string().optional(),
});
export const testRunSchema = z.object({
  id: z.uuid(),
  agentId: z.uuid(),
  version: z.number().int(),
  /** stopped: a paid run's company ran out of credits; the cases not answered stay pending. */
  status: z.enum(['running', 'finished', 'stopped']),
  /** Why a stopped run stopped; null otherwise. */
  stopped: z.object({ reason: z.enum(['credits_exhausted', 'job_failed']), message: z.string() }).nullable(),
  /** Who answered the cases: the company's provider and the version's model when the run started. */
  provider: z.enum(['builtin', 'openai']),
  model: z.string(),
  estimatedCostMicros: z.number().int(),
  createdAt: z.string(),
  createdBy: z.string().nullable(),
  passed: z.number().int(),
  failed: z.number().int(),
  requiredFailed: z.number().int(),
  cases: z.array(
    z.object({
      caseId: z.uuid(),
      name: z.string(),
      required: z.boolean(),
      /** not_judged: every machine check passed, and its judge criterion could not be judged (builtin provider). */
      status: z.enum(['pending', 'passed', 'failed', 'not_judged']),
      answer: z.object({ text: z.string(), handoff: z.boolean(), documentIds: z.array(z.string()) }).nullable(),
      results: z.array(checkSchema),
    }),
  ),
});
export type TestRunView = z.infer<typeof testRunSchema>;

export const estimateTestRunSchema = {
  tags,
  security,
  description: 'What a test run of `version` (the draft when omitted) would answer and cost (micro-dollars; 0 on the builtin provider). Nothing is charged. Owners and admins.',
  params: idParams,
  body: z.strictObject({ version: z.number().int().min(1).optional() }).nullish(),
  response: {
    200: z.object({ estimate: z.object({ version: z.number().int(), cases: z.number().int(), messages: z.number().int(), costMicros: z.number().int(), provider: z.enum(['builtin', 'openai']), model: z.string() }) }),
    ...errors,
  },
};

export const startTestRunSchema = {
  tags,
  security,
  headers: idempotencyKeyHeaders,
  description:
    'Answers every test case with `version` (the draft when omitted) and its model, in the replay worker’s slots, never a conversation nor a send: free and deterministic on the builtin provider; ' +
    'on a paid model only within `confirmedCostMicros` (the estimate; 409 CONFLICT naming a higher one), charged per answer, stopped when the credits run out. 202 with the run; poll it. Owners and admins.',
  params: idParams,
  body: z.strictObject({ version: z.number().int().min(1).optional(), confirmedCostMicros: z.number().int().min(0).default(0) }).nullish(),
  response: { 202: z.object({ run: testRunSchema }), ...errors },
};

export const getTestRunSchema = { tags, security, params: idParams.extend({ runId: z.string().max(64) }), response: { 200: z.object({ run: testRunSchema }), ...errors } };
