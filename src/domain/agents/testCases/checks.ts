import type { TestExpectations, TextMatcher } from './events.js';

/** What a test checks: the agent's final answer to the case's script. */
export type CheckedAnswer = { text: string; handoff: boolean; documentIds: string[] };
export type CheckResult = {
  check: 'contains' | 'notContains' | 'handoff' | 'noHandoff' | 'cites' | 'maxChars' | 'judge';
  expected: string;
  passed: boolean;
  verdict?: 'passed' | 'failed' | 'not_judged';
  reason?: string;
};

/**
 * A case passes when every check that ran passed: a judge that could not run ('not_judged') neither passes nor
 * fails it, and is shown as such.
 */
export const casePassed = (results: CheckResult[]) => results.every((r) => r.passed || r.verdict === 'not_judged');

const matches = (m: TextMatcher, text: string) => (m.kind === 'text' ? text.toLowerCase().includes(m.value.toLowerCase()) : new RegExp(m.value, 'iu').test(text));
const shownMatcher = (m: TextMatcher) => (m.kind === 'regex' ? `/${m.value}/` : JSON.stringify(m.value));

/** Every expectation of a case against an answer, each passed or failed, in a fixed order. */
export function checkAnswer(expect: TestExpectations, answer: CheckedAnswer): CheckResult[] {
  const results: CheckResult[] = [];
  for (const m of expect.contains ?? []) results.push({ check: 'contains', expected: shownMatcher(m), passed: matches(m, answer.text) });
  for (const m of expect.notContains ?? []) results.push({ check: 'notContains', expected: shownMatcher(m), passed: !matches(m, answer.text) });
  if (expect.handoff === true) results.push({ check: 'handoff', expected: 'hands off', passed: answer.handoff });
  if (expect.handoff === false) results.push({ check: 'noHandoff', expected: 'answers without handing off', passed: !answer.handoff });
  if (expect.citesDocumentId) results.push({ check: 'cites', expected: expect.citesDocumentId, passed: answer.documentIds.includes(expect.citesDocumentId) });
  if (expect.maxChars !== undefined) results.push({ check: 'maxChars', expected: `at most ${expect.maxChars} characters`, passed: answer.text.length <= expect.maxChars });
  return results;
}
