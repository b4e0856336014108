import { loadTestRun, recordTestCase, stopTestRun, type TestRun } from '../../commands/agents/testRuns.js';
import { chargeUsage } from '../../commands/credits/chargeUsage.js';
import { loadCreditBalance } from '../../commands/credits/streamReads.js';
import { deterministicId } from '../../commands/hashing.js';
import { casePassed, checkAnswer } from '../../domain/agents/testCases/checks.js';
import { isLlmError, type LlmMessage, type LlmProvider } from '../../ports/llm.js';
import { generateAnswer, type AnswerDeps } from '../answers/answerGeneration.js';
import { answerWithMockedActions, simulatedActions } from '../answers/mockedActions.js';
import type { FairSlots } from '../../shared/fairness/fairSlots.js';
import type { RunAgentTestsJob } from './replayJobs.js';
import type { CommandDeps } from '../../commands/deps.js';
import { judgeAnswer, type JudgeDeps } from './testJudge.js';

export interface TestRunnerDeps extends CommandDeps, Omit<AnswerDeps, 'logger' | 'pricing'>, JudgeDeps {
  /** What a run started on the builtin provider answers with (and a paid run whose company left its model since). */
  builtinLlm: LlmProvider;
}

/** How long a run waits for its company's share of the replay slots before stepping aside. */
const SLOT_WAIT_MS = 1000;

export const CREDITS_EXHAUSTED = 'The company ran out of credits: the test run stopped';

/** The id a case's answer to one turn is charged under: the same for every delivery of its run's job, so it is charged once. */
export const testAnswerId = (runId: string, caseId: string, turn: number) => deterministicId(`test-answer:${runId}:${caseId}:${turn}`);

/** Who answers a run's cases: the model its confirmed estimate was made for, on the company's provider. */
type Answerer = { provider: LlmProvider; model: string; paid: boolean };

async function answererOf(deps: TestRunnerDeps, run: TestRun): Promise<Answerer> {
  const builtin = { provider: deps.builtinLlm, model: 'builtin', paid: false };
  const recorded = run.started.llm;
  if (recorded?.kind !== 'openai') return builtin;
  const llm = await deps.loadLlm(run.started.companyId);
  return llm.kind === 'openai' ? { provider: llm.provider, model: recorded.model, paid: true } : builtin;
}

/**
 * Answers a run's cases not checked yet with the version's model, each in one of the replay slots (never a
 * customer's reply slot), and records each case's final answer with its checks, and a judge criterion's verdict
 * (testJudge.ts: the company's LLM, charged). On a paid model each answer is charged once (chargeUsage's guard
 * stream, `charge-<testAnswerId>`), and the run stops when the company's credits run out. Nothing goes to a
 * conversation, nothing is sent. A script stops at the first handoff, as a real conversation would.
 * 'deferred' when the company's share is in use.
 */
export async function runAgentTests(deps: TestRunnerDeps, job: RunAgentTestsJob, slots: FairSlots): Promise<'finished' | 'deferred' | 'stopped'> {
  const run = await loadTestRun(deps, job.companyId, job.runId);
  if (!run || run.finished || run.stopped) return 'stopped';
  const answerer = await answererOf(deps, run);
  const done = new Set(run.checked.map((c) => c.caseId));
  for (const testCase of run.started.cases) {
    if (done.has(testCase.caseId)) continue;
    const release = await slots.acquire(job.companyId, SLOT_WAIT_MS);
    if (!release) return 'deferred';
    try {
      const answer = await answerScript(deps, run, answerer, testCase);
      if (answer === 'stopped') return 'stopped';
      const results = checkAnswer(testCase.expect, answer);
      const { judge } = testCase.expect;
      if (judge) results.push(await judgeAnswer(deps, { companyId: job.companyId, runId: job.runId, caseId: testCase.caseId, criterion: judge, turns: testCase.turns, answer }));
      await recordTestCase(deps, { companyId: job.companyId, runId: job.runId, caseId: testCase.caseId, answer, results, passed: casePassed(results) });
    } finally {
      release();
    }
  }
  return 'finished';
}

type Case = TestRun['started']['cases'][number];

async function answerScript(deps: TestRunnerDeps, run: TestRun, answerer: Answerer, testCase: Case) {
  const { config, companyId, runId } = run.started;
  // The agent's actions answer with the case's mocks or their samples; the builtin provider calls none.
  const actions = await simulatedActions(deps.eventStore, companyId, config.actionIds, answerer.provider.free === true);
  const messages: LlmMessage[] = [{ role: 'system', content: config.systemPrompt }];
  let last = { text: '', handoff: false, documentIds: [] as string[] };
  for (const [turnIndex, turn] of testCase.turns.entries()) {
    if (answerer.paid && (await loadCreditBalance(deps.eventStore, companyId)) <= 0) {
      await stopTestRun(deps, { companyId, runId, message: CREDITS_EXHAUSTED });
      return 'stopped' as const;
    }
    messages.push({ role: 'user', content: turn });
    const request = { companyId, provider: answerer.provider, model: answerer.model, agent: config, messages: [...messages], question: turn };
    const answerId = testAnswerId(runId, testCase.caseId, turnIndex);
    const answerDeps = { ...deps, llmRetryDelaysMs: [] };
    let answer;
    try {
      answer = actions.length > 0 ? await answerWithMockedActions(answerDeps, request, { actions, answerId, mocks: testCase.actionMocks ?? {} }) : await generateAnswer(answerDeps, request);
    } catch (err) {
      if (!isLlmError(err)) throw err;
      // What a customer would get when the model fails: the handoff message (nothing to charge).
      deps.logger.warn({ runId, caseId: testCase.caseId, err }, 'test case answer failed');
      return { text: config.handoffMessage, handoff: true, documentIds: [] };
    }
    if (answerer.paid) {
      const { model, inputTokens, outputTokens, usageSource } = answer.billed;
      await chargeUsage(deps, { companyId, conversationId: '', replyId: answerId, testRunId: runId, testAnswer: true, model, inputTokens, outputTokens, usageSource });
    }
    const documentIds = [...new Set(answer.provenance.sources.map((s) => s.documentId))].slice(0, 20);
    last = { text: answer.response.text.slice(0, 65_536), handoff: answer.response.handoff === true, documentIds };
    if (last.handoff) break;
    messages.push({ role: 'assistant', content: last.text });
  }
  return last;
}
