import { randomUUID } from 'node:crypto';
import { agentStream } from '../../domain/agents/decider.js';
import type { AgentConfig, AgentEvent } from '../../domain/agents/events.js';
import { agentTestsStream, testCasesDecider } from '../../domain/agents/testCases/decider.js';
import { agentTestRunStream, testRunDecider, type TestRunCommand } from '../../domain/agents/testRuns/decider.js';
import type { AgentTestRunEvent } from '../../domain/agents/testRuns/events.js';
import { agentVersionConfigs } from '../../domain/agents/versions.js';
import type { Pricing } from '../../domain/credits/decider.js';
import { DomainError } from '../../domain/errors.js';
import { handleCommand, loadState, toDomainEvent } from '../handleCommand.js';
import type { CommandDeps } from '../deps.js';
import { firstEventOf, idForKey, startOnce, type IdempotencyKey } from '../idempotentStart.js';
import { DEFAULT_ANSWER_CHARS, estimateAnswer, type AnsweringLlm } from '../replays/replayPlan.js';
import { answeringLlm, confirmCost } from '../replays/replays.js';
import { loadAgent } from './streamReads.js';

/** The configuration of the company's agent's `version` (the draft when null), from its history. */
export async function versionConfig(deps: Pick<CommandDeps, 'eventStore'>, input: { companyId: string; agentId: string; version: number | null }): Promise<{ version: number; config: AgentConfig }> {
  const agent = await loadAgent(deps.eventStore, input.companyId, input.agentId);
  if (!agent) throw new DomainError('NOT_FOUND', 'Agent not found');
  const version = input.version ?? agent.draftVersion;
  const history = (await deps.eventStore.readStream(agentStream(input.agentId))).map((e) => toDomainEvent<AgentEvent>(e));
  const config = agentVersionConfigs(history).get(version);
  if (!config) throw new DomainError('NOT_FOUND', 'Version not found');
  return { version, config };
}

type Case = Awaited<ReturnType<typeof loadTestCases>>[number];
export type TestRunEstimate = { version: number; llm: AnsweringLlm; cases: number; messages: number; costMicros: number };

/**
 * What answering the cases with the version costs, priced as a replay's turns are (estimateAnswer): each turn
 * is one answer to the system prompt, the turns so far and the answers before it. Free on the builtin provider.
 */
function estimateCases(config: AgentConfig, cases: Case[], llm: AnsweringLlm, pricing: Pricing) {
  let messages = 0;
  let costMicros = 0;
  for (const testCase of cases) {
    let promptChars = config.systemPrompt.length;
    testCase.turns.forEach((turn, i) => {
      promptChars += turn.length + (i > 0 ? DEFAULT_ANSWER_CHARS : 0);
      messages++;
      costMicros += estimateAnswer({ promptChars, useKnowledgeBase: config.useKnowledgeBase }, llm, pricing).costMicros;
    });
  }
  return { cases: cases.length, messages, costMicros };
}

/** Who answers a run's cases: on the builtin provider that is the builtin provider, whatever model the version names. */
async function runAnswerer(deps: Pick<CommandDeps, 'eventStore'>, companyId: string, config: AgentConfig): Promise<AnsweringLlm> {
  const llm = await answeringLlm(deps, companyId, config.model);
  return llm.kind === 'builtin' ? { kind: 'builtin', model: 'builtin' } : llm;
}

/** What a run of the agent's cases with `version` (the draft when null) would answer and cost; nothing is charged. */
export async function estimateTestRun(deps: CommandDeps & { pricing: Pricing }, input: { companyId: string; agentId: string; version: number | null }): Promise<TestRunEstimate> {
  const { version, config } = await versionConfig(deps, input);
  const llm = await runAnswerer(deps, input.companyId, config);
  return { version, llm, ...estimateCases(config, await loadTestCases(deps, input.agentId), llm, deps.pricing) };
}

/**
 * Starts a run of the agent's test cases with `version` (the draft when omitted), answered by that version's
 * model: on a paid model only within the confirmed cost (else CONFLICT naming the new estimate, as replays).
 * The version's configuration, the cases as they are now and who answers go into the run's first event, so the
 * runner needs nothing else.
 */
type TestRunRequest = { companyId: string; userId: string; agentId: string; version: number | null; confirmedCostMicros: number; release?: { replayId: string | null; conversations: number } };

/**
 * Starts a test run, once per idempotency key (idempotentStart.ts): sent again, the key answers with the first
 * run (`repeated`). A release check names its run with its own key (`runId`), having started its replay.
 */
export async function startTestRun(deps: CommandDeps & { pricing: Pricing }, input: TestRunRequest & { idempotencyKey?: IdempotencyKey; runId?: string }) {
  const key = input.idempotencyKey;
  if (!key) return { ...(await startRun(deps, input, randomUUID())), repeated: false };
  const runId = input.runId ?? idForKey(input.companyId, 'test-run', key.key);
  const repeated = await startOnce(key, () => firstEventOf(deps, agentTestRunStream(runId)), () => startRun(deps, input, runId, key.requestHash));
  return { runId, repeated };
}

async function startRun(deps: CommandDeps & { pricing: Pricing }, input: TestRunRequest, runId: string, requestHash?: string) {
  const { version, config } = await versionConfig(deps, input);
  const cases = await loadTestCases(deps, input.agentId);
  const llm = await runAnswerer(deps, input.companyId, config);
  const estimate = estimateCases(config, cases, llm, deps.pricing);
  confirmCost(estimate, input.confirmedCostMicros);
  const result = await handleCommand(
    deps.eventStore,
    agentTestRunStream(runId),
    testRunDecider,
    {
      type: 'StartTestRun',
      runId,
      agentId: input.agentId,
      companyId: input.companyId,
      version,
      config,
      cases,
      ...(input.release ? { release: input.release } : {}),
      llm,
      estimatedCostMicros: estimate.costMicros,
      ...(requestHash ? { requestHash } : {}),
      by: `user:${input.userId}`,
      now: deps.clock.now().toISOString(),
    },
    { metadata: { companyId: input.companyId, actor: `user:${input.userId}` } },
  );
  return { ...result, runId };
}

/** Stops a run whose company ran out of credits, or whose job failed for good: the cases not answered stay unanswered. */
export async function stopTestRun(deps: CommandDeps, input: { companyId: string; runId: string; message: string; reason?: 'credits_exhausted' | 'job_failed' }) {
  return handleCommand(
    deps.eventStore,
    agentTestRunStream(input.runId),
    testRunDecider,
    { type: 'StopTestRun', reason: input.reason ?? 'credits_exhausted', message: input.message, now: deps.clock.now().toISOString() },
    { metadata: { companyId: input.companyId, actor: 'test-runner' } },
  );
}

/** The agent's test cases as they are now, oldest first (the stream is bounded: TEST_CASE_LIMITS.perAgent). */
export async function loadTestCases(deps: Pick<CommandDeps, 'eventStore'>, agentId: string) {
  const { state } = await loadState(deps.eventStore, agentTestsStream(agentId), testCasesDecider);
  return Object.values(state.cases)
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.caseId.localeCompare(b.caseId))
    .map(({ caseId, name, turns, expect, required, actionMocks }) => ({ caseId, name, turns, expect, required, ...(actionMocks ? { actionMocks } : {}) }));
}

export async function recordTestCase(deps: CommandDeps, input: { companyId: string; runId: string } & Omit<Extract<TestRunCommand, { type: 'RecordTestCase' }>, 'type' | 'now'>) {
  const { companyId, runId, ...checked } = input;
  return handleCommand(
    deps.eventStore,
    agentTestRunStream(runId),
    testRunDecider,
    { type: 'RecordTestCase', ...checked, now: deps.clock.now().toISOString() },
    { metadata: { companyId, actor: 'test-runner' } },
  );
}

type Started = Extract<AgentTestRunEvent, { type: 'AgentTestRunStarted' }>['data'];
type Checked = Extract<AgentTestRunEvent, { type: 'AgentTestCaseChecked' }>['data'];
type Finished = Extract<AgentTestRunEvent, { type: 'AgentTestRunFinished' }>['data'];
type Stopped = Extract<AgentTestRunEvent, { type: 'AgentTestRunStopped' }>['data'];
export type TestRun = { started: Started; checked: Checked[]; finished: Finished | null; stopped: Stopped | null };

/**
 * A run as recorded (strongly consistent), or null when missing or another company's. Its stream is bounded:
 * the start, at most one result per case (TEST_CASE_LIMITS.perAgent) and the finish or the stop.
 */
export async function loadTestRun(deps: Pick<CommandDeps, 'eventStore'>, companyId: string, runId: string): Promise<TestRun | null> {
  const events = (await deps.eventStore.readStream(agentTestRunStream(runId))).map((e) => toDomainEvent<AgentTestRunEvent>(e));
  const first = events[0];
  if (first?.type !== 'AgentTestRunStarted' || first.data.companyId !== companyId) return null;
  const run: TestRun = { started: first.data, checked: [], finished: null, stopped: null };
  for (const e of events.slice(1)) {
    if (e.type === 'AgentTestCaseChecked') run.checked.push(e.data);
    else if (e.type === 'AgentTestRunFinished') run.finished = e.data;
    else if (e.type === 'AgentTestRunStopped') run.stopped = e.data;
  }
  return run;
}
