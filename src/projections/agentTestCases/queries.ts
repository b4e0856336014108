import type { FindQuery, Page, ReadStore } from '../../ports/readStore.js';
import { AGENT_TEST_CASES, type AgentTestCaseDoc } from './agentTestCasesProjection.js';

/** An agent's test cases, oldest first. The caller has checked the agent is the company's. */
export async function listAgentTestCases(readStore: ReadStore, agentId: string, page: Pick<FindQuery, 'limit' | 'cursor'>): Promise<Page<AgentTestCaseDoc>> {
  return readStore.find<AgentTestCaseDoc>(AGENT_TEST_CASES, {
    where: { agentId },
    orderBy: [{ field: 'createdAt', direction: 'asc' }],
    limit: page.limit,
    cursor: page.cursor ?? null,
  });
}
