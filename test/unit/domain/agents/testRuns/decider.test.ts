import { describe, expect, it } from 'vitest';
import { agentDefaults } from '../../../../../src/domain/agents/events.js';
import { testRunDecider, type TestRunCommand } from '../../../../../src/domain/agents/testRuns/decider.js';
import type { AgentTestRunEvent } from '../../../../../src/domain/agents/testRuns/events.js';
import { specFor } from '../../../../support/gwt.js';

const R = '99999999-9999-4999-8999-999999999999';
const A = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const C = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc';
const K1 = '11111111-1111-4111-8111-111111111111';
const K2 = '22222222-2222-4222-8222-222222222222';
const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-02T00:00:00.000Z';
const { active: _a, ...config } = agentDefaults;

const spec = specFor(testRunDecider);
const cases = [
  { caseId: K1, name: 'Cheques', turns: ['Cheque?'], expect: { handoff: true }, required: true },
  { caseId: K2, name: 'Short', turns: ['Hi'], expect: { maxChars: 10 }, required: false },
];
const started: AgentTestRunEvent = { type: 'AgentTestRunStarted', data: { runId: R, agentId: A, companyId: C, version: 2, config, cases, by: null, at: T0 } };
const answer = { text: 'A colleague will reply.', handoff: true, documentIds: [] };
const checked = (caseId: string, passed: boolean): AgentTestRunEvent => ({
  type: 'AgentTestCaseChecked',
  data: { caseId, answer, results: [{ check: 'handoff', expected: 'hands off', passed }], passed, at: T1 },
});
const record = (caseId: string, passed: boolean): TestRunCommand => ({ type: 'RecordTestCase', caseId, answer, results: [{ check: 'handoff', expected: 'hands off', passed }], passed, now: T1 });

describe('agent test runs', () => {
  it('starts with the version and the cases as they are', () => {
    spec.given([]).when({ type: 'StartTestRun', runId: R, agentId: A, companyId: C, version: 2, config, cases, by: null, now: T0 }).then([started]);
  });

  it('records each case once; the last one finishes the run with its counts', () => {
    spec.given([started]).when(record(K1, true)).then([checked(K1, true)]);
    spec.given([started, checked(K1, true)]).when(record(K1, false)).then([]);
    const state = spec
      .given([started, checked(K2, false)])
      .when(record(K1, false))
      .then([checked(K1, false), { type: 'AgentTestRunFinished', data: { passed: 0, failed: 2, requiredFailed: 1, at: T1 } }]);
    expect(state.status).toBe('finished');
  });

  it('a run without cases finishes as it starts; a case not in the run is NOT_FOUND', () => {
    spec
      .given([])
      .when({ type: 'StartTestRun', runId: R, agentId: A, companyId: C, version: 1, config, cases: [], by: null, now: T0 })
      .then([
        { type: 'AgentTestRunStarted', data: { runId: R, agentId: A, companyId: C, version: 1, config, cases: [], by: null, at: T0 } },
        { type: 'AgentTestRunFinished', data: { passed: 0, failed: 0, requiredFailed: 0, at: T0 } },
      ]);
    spec.given([started]).when(record('33333333-3333-4333-8333-333333333333', true)).thenThrows('NOT_FOUND');
  });

  it('a paid run records who answers and the confirmed cost; when the credits run out it stops once, and records no later answer', () => {
    const paid = { runId: R, agentId: A, companyId: C, version: 2, config, cases, llm: { kind: 'openai' as const, model: 'gpt-4o-mini' }, estimatedCostMicros: 1200, by: null };
    spec.given([]).when({ type: 'StartTestRun', ...paid, now: T0 }).then([{ type: 'AgentTestRunStarted', data: { ...paid, at: T0 } }]);
    const stop: TestRunCommand = { type: 'StopTestRun', reason: 'credits_exhausted', message: 'No credits left', now: T1 };
    const stopped: AgentTestRunEvent = { type: 'AgentTestRunStopped', data: { reason: 'credits_exhausted', message: 'No credits left', at: T1 } };
    const state = spec.given([started, checked(K1, true)]).when(stop).then([stopped]);
    expect(state.status).toBe('stopped');
    spec.given([started, stopped]).when(stop).then([]);
    spec.given([started, stopped]).when(record(K2, true)).then([]);
    spec.given([]).when(stop).thenThrows('NOT_FOUND');
  });
});
