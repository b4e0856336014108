import { agentTestRunEvents } from '../../domain/agents/testRuns/events.js';
import { RUN_AGENT_TESTS } from './replayJobs.js';
import { defineReactor } from '../../processing/reactor.js';

/** AgentTestRunStarted ──▶ RUN_AGENT_TESTS, one job per run with cases; the replay worker answers them. */
export const agentTestRunsReactor = defineReactor(agentTestRunEvents, {
  name: 'agent-test-runs',
  eventTypes: ['AgentTestRunStarted'],
  start: ({ bus }) =>
    async (event) => {
      const { runId, companyId, cases } = event.data;
      if (cases.length > 0) await bus.publish(RUN_AGENT_TESTS, { runId, companyId }, { dedupeId: event.id });
    },
});
