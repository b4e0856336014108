import type { Decider } from '../../decider.js';
import { DomainError } from '../../errors.js';
import { patternProblems } from '../../linearPattern.js';
import { REGEX_MATCHING } from './checks.js';
import { actionMocksProblem, TEST_CASE_LIMITS, testCaseBody, type AgentTestCaseEvent, type TestCaseBody } from './events.js';
import { evolveTestCases, initialTestCasesState, type TestCasesState } from './state.js';

/** The caller has checked that the agent exists and is the company's. */
export type TestCaseCommand =
  | { type: 'SaveTestCase'; caseId: string; agentId: string; companyId: string; body: TestCaseBody; create: boolean; by: string | null; now: string }
  | { type: 'RemoveTestCase'; caseId: string; companyId: string; by: string | null; now: string };

const notFound = () => new DomainError('NOT_FOUND', 'Test case not found');

function checkBody(body: TestCaseBody): void {
  // Before the schema, whose z.json() walks each mock recursively (a deep one overflows the stack).
  const mocks = body.actionMocks === undefined ? null : actionMocksProblem(body.actionMocks);
  if (mocks !== null) throw new DomainError('VALIDATION_ERROR', `actionMocks: ${mocks}`);
  const parsed = testCaseBody.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new DomainError('VALIDATION_ERROR', `${issue?.path.map(String).join('.') || 'testCase'}: ${issue?.message ?? 'invalid'}`);
  }
  const patterns = (['contains', 'notContains'] as const).flatMap((list) =>
    (body.expect[list] ?? []).flatMap((m, i) => (m.kind === 'regex' ? [{ field: `expect.${list}.${i}.value`, source: m.value }] : [])),
  );
  // Run on the agent's answers case-insensitively, anywhere in the text: see linearPattern.ts.
  const problems = patternProblems(patterns, REGEX_MATCHING);
  if (problems.length > 0) throw new DomainError('VALIDATION_ERROR', problems.join('; '));
}

export const testCasesDecider: Decider<TestCaseCommand, AgentTestCaseEvent, TestCasesState> = {
  initialState: initialTestCasesState,
  evolve: evolveTestCases,
  decide(command, state) {
    if (state.companyId !== null && state.companyId !== command.companyId) throw notFound();
    const existing = state.cases[command.caseId];
    if (command.type === 'RemoveTestCase') {
      if (!existing) throw notFound();
      return [{ type: 'AgentTestCaseRemoved', data: { caseId: command.caseId, by: command.by, at: command.now } }];
    }
    if (!command.create && !existing) throw notFound();
    if (command.create && existing) throw new DomainError('CONFLICT', 'Test case already exists');
    if (command.create && Object.keys(state.cases).length >= TEST_CASE_LIMITS.perAgent) {
      throw new DomainError('QUOTA_EXCEEDED', `An agent has at most ${TEST_CASE_LIMITS.perAgent} test cases`);
    }
    checkBody(command.body);
    const { caseId, agentId, companyId, body, by, now } = command;
    return [{ type: 'AgentTestCaseSaved', data: { ...body, caseId, agentId, companyId, by, at: now } }];
  },
};

export const agentTestsStream = (agentId: string) => `agenttests-${agentId}`;
export const agentIdOfTestsStream = (stream: string) => stream.slice('agenttests-'.length);
