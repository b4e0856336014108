import { loadTestRun, recordTestCase, type TestRun } from '../commands/agents/testRuns.js';
import { casePassed, checkAnswer } from '../domain/agents/testCases/checks.js';
import type { LlmMessage, LlmProvider } from '../ports/llm.js';
import { generateAnswer, type AnswerDeps } from './answerGeneration.js';
import { answerWithMockedActions, simulatedActions } from './mockedActions.js';
import type { FairSlots } from './fairSlots.js';
import type { RunAgentTestsJob } from './replayJobs.js';
import type { CommandDeps } from '../commands/deps.js';
import { judgeAnswer, type JudgeDeps } from './testJudge.js';

export interface TestRunnerDeps extends CommandDeps, Omit<AnswerDeps, 'logger' | 'pricing'>, JudgeDeps {
  /** Test runs answer on the builtin provider: deterministic and free, whatever model the company pays for. */
  builtinLlm: LlmProvider;
}

/** How long a run waits for its company's share of the replay slots before stepping aside. */
const SLOT_WAIT_MS = 1000;

/**
 * Answers a run's cases not checked yet, each in one of the replay slots (never a customer's reply slot), and
 * records each case's final answer with its checks, and a judge criterion's verdict (testJudge.ts: the company's
 * LLM, charged). Nothing goes to a conversation, nothing is sent. A script
 * stops at the first handoff, as a real conversation would. 'deferred' when the company's share is in use.
 */
export async function runAgentTests(deps: TestRunnerDeps, job: RunAgentTestsJob, slots: FairSlots): Promise<'finished' | 'deferred' | 'stopped'> {
  const run = await loadTestRun(deps, job.companyId, job.runId);
  if (!run || run.finished) return 'stopped';
  const done = new Set(run.checked.map((c) => c.caseId));
  for (const testCase of run.started.cases) {
    if (done.has(testCase.caseId)) continue;
    const release = await slots.acquire(job.companyId, SLOT_WAIT_MS);
    if (!release) return 'deferred';
    try {
      const answer = await answerScript(deps, run, testCase.turns, testCase.actionMocks);
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

async function answerScript(deps: TestRunnerDeps, run: TestRun, turns: string[], mocks: Record<string, unknown> = {}) {
  // The agent's actions answer with the case's mocks or their samples; the builtin provider calls none.
  const actions = await simulatedActions(deps.eventStore, run.started.companyId, run.started.config.actionIds, deps.builtinLlm.free === true);
  const { config, companyId } = run.started;
  const messages: LlmMessage[] = [{ role: 'system', content: config.systemPrompt }];
  let last = { text: '', handoff: false, documentIds: [] as string[] };
  for (const turn of turns) {
    messages.push({ role: 'user', content: turn });
    const request = { companyId, provider: deps.builtinLlm, model: 'builtin', agent: config, messages: [...messages], question: turn };
    const answerId = `${run.started.runId}:${turns.length}:${messages.length}`;
    const answer =
      actions.length > 0
        ? await answerWithMockedActions({ ...deps, llmRetryDelaysMs: [] }, request, { actions, answerId, mocks })
        : await generateAnswer({ ...deps, llmRetryDelaysMs: [] }, request);
    const documentIds = [...new Set(answer.provenance.sources.map((s) => s.documentId))].slice(0, 20);
    last = { text: answer.response.text.slice(0, 65_536), handoff: answer.response.handoff === true, documentIds };
    if (last.handoff) break;
    messages.push({ role: 'assistant', content: last.text });
  }
  return last;
}
