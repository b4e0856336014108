import type { Decider } from '../../decider.js';
import { DomainError } from '../../errors.js';
import type { AgentTestRunEvent } from './events.js';
import { evolveTestRun, initialTestRunState, type TestRunState } from './state.js';

type Started = Extract<AgentTestRunEvent, { type: 'AgentTestRunStarted' }>['data'];
type Checked = Extract<AgentTestRunEvent, { type: 'AgentTestCaseChecked' }>['data'];
type Stopped = Extract<AgentTestRunEvent, { type: 'AgentTestRunStopped' }>['data'];

export type TestRunCommand =
  | ({ type: 'StartTestRun'; now: string } & Omit<Started, 'at'>)
  /** Idempotent: a case already checked records nothing (a redelivered job). The last case finishes the run. */
  | ({ type: 'RecordTestCase'; now: string } & Omit<Checked, 'at'>)
  /** Idempotent: only a running run stops; what was answered stays. */
  | ({ type: 'StopTestRun'; now: string } & Omit<Stopped, 'at'>);

export const testRunDecider: Decider<TestRunCommand, AgentTestRunEvent, TestRunState> = {
  initialState: initialTestRunState,
  evolve: evolveTestRun,
  decide(command, state) {
    if (command.type === 'StartTestRun') {
      if (state.status !== 'none') throw new DomainError('CONFLICT', 'Test run already exists');
      const { type: _t, now, ...data } = command;
      const events: AgentTestRunEvent[] = [{ type: 'AgentTestRunStarted', data: { ...data, at: now } }];
      // A run without cases is finished as it starts.
      if (data.cases.length === 0) events.push({ type: 'AgentTestRunFinished', data: { passed: 0, failed: 0, requiredFailed: 0, at: now } });
      return events;
    }
    if (command.type === 'StopTestRun') {
      if (state.status === 'none') throw new DomainError('NOT_FOUND', 'Test run not found');
      const { type: _t, now, ...data } = command;
      return state.status === 'running' ? [{ type: 'AgentTestRunStopped', data: { ...data, at: now } }] : [];
    }
    if (state.status === 'none' || !(command.caseId in state.required)) throw new DomainError('NOT_FOUND', 'Test case not in this run');
    // A stopped run stays as it stopped: an answer another delivery was still writing then is not recorded.
    if (command.caseId in state.checked || state.status === 'stopped') return [];
    const { type: _t, now, ...data } = command;
    const events: AgentTestRunEvent[] = [{ type: 'AgentTestCaseChecked', data: { ...data, at: now } }];
    const checked = { ...state.checked, [command.caseId]: command.passed };
    const ids = Object.keys(state.required);
    if (ids.every((id) => id in checked)) {
      const failedIds = ids.filter((id) => !checked[id]);
      events.push({
        type: 'AgentTestRunFinished',
        data: { passed: ids.length - failedIds.length, failed: failedIds.length, requiredFailed: failedIds.filter((id) => state.required[id]).length, at: now },
      });
    }
    return events;
  },
};

export const agentTestRunStream = (runId: string) => `agenttestrun-${runId}`;
export const testRunIdOfStream = (stream: string) => stream.slice('agenttestrun-'.length);
