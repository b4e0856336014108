import type { AgentTestCaseEvent, TestCaseBody } from './events.js';

export type TestCase = TestCaseBody & { caseId: string; createdAt: string; updatedAt: string };
/** The agent's cases (at most TEST_CASE_LIMITS.perAgent), by id; companyId from the first case saved. */
export type TestCasesState = { companyId: string | null; cases: Record<string, TestCase> };

export const initialTestCasesState: TestCasesState = { companyId: null, cases: {} };

export function evolveTestCases(state: TestCasesState, event: AgentTestCaseEvent): TestCasesState {
  switch (event.type) {
    case 'AgentTestCaseSaved': {
      const { caseId, agentId: _a, companyId, by: _b, at, ...body } = event.data;
      const createdAt = state.cases[caseId]?.createdAt ?? at;
      return { companyId: state.companyId ?? companyId, cases: { ...state.cases, [caseId]: { ...body, caseId, createdAt, updatedAt: at } } };
    }
    case 'AgentTestCaseRemoved': {
      const { [event.data.caseId]: _gone, ...cases } = state.cases;
      return { ...state, cases };
    }
  }
}
