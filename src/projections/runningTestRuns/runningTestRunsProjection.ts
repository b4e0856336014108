import { testRunIdOfStream } from '../../domain/agents/testRuns/decider.js';
import { agentTestRunEvents } from '../../domain/agents/testRuns/events.js';
import type { Doc } from '../../ports/readStore.js';
import { defineProjection } from '../projection.js';

/**
 * The agent test runs (release checks' suites too) still answering their cases: one small document each, gone
 * once the run finishes or stops. With the embedded bus a run's job lives in memory only, so the start-up sweep
 * (workers/replays/replayEvaluations.ts) publishes these again after a restart, and a check never stays running for ever.
 */
export interface RunningTestRunDoc extends Doc {
  companyId: string;
}

export const RUNNING_TEST_RUNS = 'runningTestRuns';

export const runningTestRunsProjection = defineProjection(agentTestRunEvents, {
  name: 'runningTestRuns',
  collections: [{ name: RUNNING_TEST_RUNS, indexes: [] }],
  eventTypes: ['AgentTestRunStarted', 'AgentTestRunFinished', 'AgentTestRunStopped'],
  async apply(event, ctx) {
    const id = testRunIdOfStream(event.stream);
    if (event.type !== 'AgentTestRunStarted') ctx.delete(RUNNING_TEST_RUNS, id);
    // A run without cases finishes as it starts (the same append): nothing to answer, nothing to resume.
    else if (event.data.cases.length > 0) ctx.put(RUNNING_TEST_RUNS, { id, companyId: event.data.companyId });
  },
});
