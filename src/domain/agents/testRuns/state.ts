import type { AgentTestRunEvent } from './events.js';

/** Small on purpose: which cases the run has and which are checked (the answers stay in the events). */
export type TestRunState =
  | { status: 'none' }
  | { status: 'running' | 'finished' | 'stopped'; companyId: string; agentId: string; required: Record<string, boolean>; checked: Record<string, boolean> };

export const initialTestRunState: TestRunState = { status: 'none' };

export function evolveTestRun(state: TestRunState, event: AgentTestRunEvent): TestRunState {
  switch (event.type) {
    case 'AgentTestRunStarted': {
      const { companyId, agentId, cases } = event.data;
      return { status: 'running', companyId, agentId, required: Object.fromEntries(cases.map((c) => [c.caseId, c.required])), checked: {} };
    }
    case 'AgentTestCaseChecked':
      return state.status === 'none' ? state : { ...state, checked: { ...state.checked, [event.data.caseId]: event.data.passed } };
    case 'AgentTestRunFinished':
      return state.status === 'none' ? state : { ...state, status: 'finished' };
    case 'AgentTestRunStopped':
      return state.status === 'none' ? state : { ...state, status: 'stopped' };
  }
}
