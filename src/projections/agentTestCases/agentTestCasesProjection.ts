import { agentIdOfTestsStream } from '../../domain/agents/testCases/decider.js';
import { agentTestCaseEvents, type TestCaseBody, type TestExpectations } from '../../domain/agents/testCases/events.js';
import type { Doc } from '../../ports/readStore.js';
import { defineProjection } from '../projection.js';

/** One test case of an agent (id = caseId), oldest first. */
export interface AgentTestCaseDoc extends Doc {
  agentId: string;
  companyId: string;
  name: string;
  turns: string[];
  expect: TestExpectations;
  required: boolean;
  /** Made from a conversation: what a person or the accepted AI answer said (absent otherwise). */
  reference?: TestCaseBody['reference'];
  /** Absent on cases saved before action mocks existed. */
  actionMocks?: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
  updatedBy: string | null;
}

export const AGENT_TEST_CASES = 'agentTestCases';

export const agentTestCasesProjection = defineProjection(agentTestCaseEvents, {
  name: 'agentTestCases',
  collections: [{ name: AGENT_TEST_CASES, indexes: [['agentId', 'createdAt']] }],
  eventTypes: ['AgentTestCaseSaved', 'AgentTestCaseRemoved'],
  async apply(event, ctx) {
    if (event.type === 'AgentTestCaseRemoved') {
      ctx.delete(AGENT_TEST_CASES, event.data.caseId);
      return;
    }
    const { caseId, companyId, name, turns, expect, required, reference, actionMocks, by, at } = event.data;
    const before = await ctx.get<AgentTestCaseDoc>(AGENT_TEST_CASES, caseId);
    const doc: AgentTestCaseDoc = { id: caseId, agentId: agentIdOfTestsStream(event.stream), companyId, name, turns, expect, required, ...(reference ? { reference } : {}), ...(actionMocks ? { actionMocks } : {}), createdAt: before?.createdAt ?? at, updatedAt: at, updatedBy: by };
    ctx.put(AGENT_TEST_CASES, doc);
  },
});
