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

/**
 * Runs a team's regular expression (case-insensitive, unicode) on an answer: true or false, or 'too_slow' when it
 * was stopped for running past its budget. An expression can backtrack catastrophically (`(a+)+$` on a long
 * answer runs for years), so the caller bounds it (workers/boundedRegex.ts), outside the pure domain.
 */
export type RegexTest = (source: string, text: string) => boolean | 'too_slow';

export const REGEX_TOO_SLOW = 'the regular expression took too long on this answer and was stopped: simplify it (no nested repetition such as (a+)+)';

const matches = (m: TextMatcher, text: string, regex: RegexTest) => (m.kind === 'text' ? text.toLowerCase().includes(m.value.toLowerCase()) : regex(m.value, text));
const shownMatcher = (m: TextMatcher) => (m.kind === 'regex' ? `/${m.value}/` : JSON.stringify(m.value));

/** A matcher's check: an expression stopped for taking too long neither matches nor fails to: the check fails. */
function matcherResult(check: 'contains' | 'notContains', m: TextMatcher, text: string, regex: RegexTest): CheckResult {
  const found = matches(m, text, regex);
  if (found === 'too_slow') return { check, expected: shownMatcher(m), passed: false, reason: REGEX_TOO_SLOW };
  return { check, expected: shownMatcher(m), passed: check === 'contains' ? found : !found };
}

/** Every expectation of a case against an answer, each passed or failed, in a fixed order. */
export function checkAnswer(expect: TestExpectations, answer: CheckedAnswer, regex: RegexTest): CheckResult[] {
  const results: CheckResult[] = [];
  for (const m of expect.contains ?? []) results.push(matcherResult('contains', m, answer.text, regex));
  for (const m of expect.notContains ?? []) results.push(matcherResult('notContains', m, answer.text, regex));
  if (expect.handoff === true) results.push({ check: 'handoff', expected: 'hands off', passed: answer.handoff });
  if (expect.handoff === false) results.push({ check: 'noHandoff', expected: 'answers without handing off', passed: !answer.handoff });
  if (expect.citesDocumentId) results.push({ check: 'cites', expected: expect.citesDocumentId, passed: answer.documentIds.includes(expect.citesDocumentId) });
  if (expect.maxChars !== undefined) results.push({ check: 'maxChars', expected: `at most ${expect.maxChars} characters`, passed: answer.text.length <= expect.maxChars });
  return results;
}
