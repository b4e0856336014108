import { z } from 'zod';
import { ACTION_LIMITS, actionName } from '../../actions/definition.js';
import { nestedDeeperThan } from '../../jsonBounds.js';

/**
 * An agent's test cases (stream `agenttests-<agentId>`): a customer message, or a short script of customer
 * turns, with expectations a machine checks on the agent's final answer (checks.ts). A case is saved whole
 * (created or replaced) and removed; teammates of every role may edit them.
 */
export const TEST_CASE_LIMITS = { perAgent: 200, name: 200, turns: 5, turnChars: 2_000, matchers: 10, matcherChars: 200, maxChars: 65_536, judgeChars: 500, referenceChars: 4_000 } as const;

/**
 * A case's mocks are what its actions answer, so they are bounded as a sample response is: each nested at most as
 * deep, and all of them together at most as long as one (a run copies every case: 900 KB mocks on 20 cases made
 * each run 17 MB and the server 1.2 GB).
 */
export const ACTION_MOCKS_LIMITS = { chars: ACTION_LIMITS.sampleResponseChars, depth: ACTION_LIMITS.jsonDepth } as const;

/** What is wrong with a case's mocks (null: nothing); checked before anything walks them. */
export function actionMocksProblem(mocks: unknown): string | null {
  // The map itself is one level above the answers it holds.
  if (nestedDeeperThan(mocks, ACTION_MOCKS_LIMITS.depth + 1)) return `a mock is nested deeper than ${ACTION_MOCKS_LIMITS.depth} levels`;
  const text = JSON.stringify(mocks);
  if (text !== undefined && text.length > ACTION_MOCKS_LIMITS.chars) return `at most ${ACTION_MOCKS_LIMITS.chars} characters of JSON in all`;
  return null;
}

export const textMatcher = z.object({ kind: z.enum(['text', 'regex']), value: z.string().min(1).max(TEST_CASE_LIMITS.matcherChars) });
export type TextMatcher = z.infer<typeof textMatcher>;

export const testExpectations = z.object({
  /** Every one must match the answer (text: case-insensitive substring; regex: case-insensitive, anywhere in it, on RE2's linear-time engine: linearPattern.ts). */
  contains: z.array(textMatcher).max(TEST_CASE_LIMITS.matchers).optional(),
  /** None may match. */
  notContains: z.array(textMatcher).max(TEST_CASE_LIMITS.matchers).optional(),
  /** true: the agent must hand off; false: it must answer. */
  handoff: z.boolean().optional(),
  /** The answer must draw on this knowledge document. */
  citesDocumentId: z.uuid().optional(),
  /** At most this many characters. */
  maxChars: z.number().int().min(1).max(TEST_CASE_LIMITS.maxChars).optional(),
  /**
   * A criterion in plain words ("does not promise a refund"), judged by the company's LLM and charged like an
   * answer. The builtin provider cannot judge: the result is "not judged", never a pass.
   */
  judge: z.string().min(1).max(TEST_CASE_LIMITS.judgeChars).optional(),
});
export type TestExpectations = z.infer<typeof testExpectations>;

export const testCaseBody = z.object({
  name: z.string().min(1).max(TEST_CASE_LIMITS.name),
  turns: z.array(z.string().min(1).max(TEST_CASE_LIMITS.turnChars)).min(1).max(TEST_CASE_LIMITS.turns),
  expect: testExpectations,
  /** A required case that fails should stop a release. */
  required: z.boolean(),
  /**
   * What a person (or an accepted AI answer) told the customer, for whoever reads the case's results: the case
   * was made from a real conversation (fromConversation.ts). Not checked by itself.
   */
  reference: z.object({ kind: z.enum(['operator', 'agent']), text: z.string().min(1).max(TEST_CASE_LIMITS.referenceChars), conversationId: z.uuid() }).optional(),
  /**
   * What the agent's actions answer in this case, by action name (JSON, as the endpoint would); an action not named
   * here answers with its sample response. A test run never calls a company's endpoint.
   */
  actionMocks: z.record(actionName, z.json()).refine((m) => Object.keys(m).length <= ACTION_LIMITS.perAgent, `at most ${ACTION_LIMITS.perAgent} mocks`).optional(),
});
export type TestCaseBody = z.infer<typeof testCaseBody>;

const at = z.iso.datetime();
const by = z.string().max(100).nullable();

export const agentTestCaseEvents = {
  AgentTestCaseSaved: testCaseBody.extend({ caseId: z.uuid(), agentId: z.uuid(), companyId: z.uuid(), by, at }),
  AgentTestCaseRemoved: z.object({ caseId: z.uuid(), by, at }),
};
type Events = typeof agentTestCaseEvents;
export type AgentTestCaseEvent = { [K in keyof Events]: { type: K; data: z.infer<Events[K]> } }[keyof Events];
