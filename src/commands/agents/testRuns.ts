import { randomUUID } from 'node:crypto';
import { agentStream } from '../../domain/agents/decider.js';
import type { AgentEvent } from '../../domain/agents/events.js';
import { agentTestsStream, testCasesDecider } from '../../domain/agents/testCases/decider.js';
import { agentTestRunStream, testRunDecider, type TestRunCommand } from '../../domain/agents/testRuns/decider.js';
import type { AgentTestRunEvent } from '../../domain/agents/testRuns/events.js';
import { agentVersionConfigs } from '../../domain/agents/versions.js';
import { DomainError } from '../../domain/errors.js';
import { handleCommand, loadState, toDomainEvent } from '../handleCommand.js';
import type { CommandDeps } from '../deps.js';
import { loadAgent } from './queries.js';

/**
 * Starts a run of the agent's test cases with `version` (the draft when omitted): the version's configuration
 * and the cases as they are now go into the run's first event, so the runner needs nothing else.
 */
export async function startTestRun(
  deps: CommandDeps,
  input: { companyId: string; userId: string; agentId: string; version: number | null; release?: { replayId: string | null; conversations: number } },
) {
  const agent = await loadAgent(deps.eventStore, input.companyId, input.agentId);
  if (!agent) throw new DomainError('NOT_FOUND', 'Agent not found');
  const version = input.version ?? agent.draftVersion;
  const history = (await deps.eventStore.readStream(agentStream(input.agentId))).map((e) => toDomainEvent<AgentEvent>(e));
  const config = agentVersionConfigs(history).get(version);
  if (!config) throw new DomainError('NOT_FOUND', 'Version not found');
  const cases = await loadTestCases(deps, input.agentId);
  const runId = randomUUID();
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
      by: `user:${input.userId}`,
      now: deps.clock.now().toISOString(),
    },
    { metadata: { companyId: input.companyId, actor: `user:${input.userId}` } },
  );
  return { ...result, runId };
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
export type TestRun = { started: Started; checked: Checked[]; finished: Finished | null };

/**
 * A run as recorded (strongly consistent), or null when missing or another company's. Its stream is bounded:
 * the start, at most one result per case (TEST_CASE_LIMITS.perAgent) and the finish.
 */
export async function loadTestRun(deps: Pick<CommandDeps, 'eventStore'>, companyId: string, runId: string): Promise<TestRun | null> {
  const events = (await deps.eventStore.readStream(agentTestRunStream(runId))).map((e) => toDomainEvent<AgentTestRunEvent>(e));
  const first = events[0];
  if (first?.type !== 'AgentTestRunStarted' || first.data.companyId !== companyId) return null;
  const run: TestRun = { started: first.data, checked: [], finished: null };
  for (const e of events.slice(1)) {
    if (e.type === 'AgentTestCaseChecked') run.checked.push(e.data);
    else if (e.type === 'AgentTestRunFinished') run.finished = e.data;
  }
  return run;
}
