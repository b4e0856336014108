import { z } from 'zod';
import { agentConfig } from '../events.js';
import { REPLAY_LIMITS } from '../../replays/events.js';
import { TEST_CASE_LIMITS, testCaseBody } from '../testCases/events.js';

/**
 * A run of an agent's test cases with one version (stream `agenttestrun-<runId>`), answered by that version's
 * model: it records each case's final answer and which expectations passed, never writes a conversation nor
 * sends anything. The start carries the version's configuration, the cases as they were and the provider the
 * confirmed estimate was made for, so a later edit (or a switch of provider) changes nothing of a run.
 */
const at = z.iso.datetime();
const checkResult = z.object({
  check: z.enum(['contains', 'notContains', 'handoff', 'noHandoff', 'cites', 'maxChars', 'judge']),
  expected: z.string().max(500),
  passed: z.boolean(),
  /** A judge's verdict: 'not_judged' (passed false) when no judge could run (builtin provider, no credits, model failed). */
  verdict: z.enum(['passed', 'failed', 'not_judged']).optional(),
  /** The judge's reason, or why it did not judge: plain text, one line. */
  reason: z.string().max(500).optional(),
});

export const agentTestRunEvents = {
  AgentTestRunStarted: z.object({
    runId: z.uuid(),
    agentId: z.uuid(),
    companyId: z.uuid(),
    version: z.number().int().min(1),
    config: agentConfig,
    cases: z.array(testCaseBody.extend({ caseId: z.uuid() })).max(TEST_CASE_LIMITS.perAgent),
    /**
     * Present on a release check (agents/releaseGate.ts): the run is the check's test suite, and `replayId` the
     * replay of the version over the agent's `conversations` most recent conversations (null: none had turns).
     */
    release: z.object({ replayId: z.uuid().nullable(), conversations: z.number().int().min(0).max(REPLAY_LIMITS.conversations) }).optional(),
    /**
     * Who answers the cases: the company's provider and the version's model when the run started, and the cost
     * the user confirmed for it. Absent (runs started before paid runs existed): the builtin provider, free.
     */
    llm: z.object({ kind: z.enum(['builtin', 'openai']), model: z.string().max(200) }).optional(),
    estimatedCostMicros: z.number().int().min(0).optional(),
    /** Started under an Idempotency-Key: the request's hash, so the key sent again with another request is refused. */
    requestHash: z.string().regex(/^[0-9a-f]{64}$/).optional(),
    by: z.string().max(100).nullable(),
    at,
  }),
  AgentTestCaseChecked: z.object({
    caseId: z.uuid(),
    answer: z.object({ text: z.string().max(65_536), handoff: z.boolean(), documentIds: z.array(z.uuid()).max(20) }),
    results: z.array(checkResult).max(50),
    passed: z.boolean(),
    at,
  }),
  AgentTestRunFinished: z.object({ passed: z.number().int().min(0), failed: z.number().int().min(0), requiredFailed: z.number().int().min(0), at }),
  /**
   * A run that could not answer every case: the company's credits ran out, or its job kept failing (every
   * delivery the bus allows). The cases not answered stay so.
   */
  AgentTestRunStopped: z.object({ reason: z.enum(['credits_exhausted', 'job_failed']), message: z.string().max(500), at }),
};
type Events = typeof agentTestRunEvents;
export type AgentTestRunEvent = { [K in keyof Events]: { type: K; data: z.infer<Events[K]> } }[keyof Events];
