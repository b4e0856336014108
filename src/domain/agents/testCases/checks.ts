import { compilePattern, type PatternOptions } from '../../linearPattern.js';
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

/** How a case's regular expressions match an answer: case-insensitively, anywhere in it (RE2, linear time). */
export const REGEX_MATCHING: PatternOptions = { caseInsensitive: true };

const shownMatcher = (m: TextMatcher) => (m.kind === 'regex' ? `/${m.value}/` : JSON.stringify(m.value));

/**
 * A matcher's check. A regular expression runs on RE2 (linear in the answer, no clock), so the result depends on
 * the answer alone. One that RE2 cannot run (saved before the engine changed, with a lookahead or a backreference)
 * neither matches nor fails to: the check fails, saying why, the same way on every run.
 */
function matcherResult(check: 'contains' | 'notContains', m: TextMatcher, text: string): CheckResult {
  const expected = shownMatcher(m);
  let found: boolean;
  if (m.kind === 'text') found = text.toLowerCase().includes(m.value.toLowerCase());
  else {
    const compiled = compilePattern(m.value, REGEX_MATCHING);
    if (!compiled.ok) return { check, expected, passed: false, reason: `the regular expression cannot run: ${compiled.problem}; edit the case` };
    found = compiled.pattern.test(text);
  }
  return { check, expected, passed: check === 'contains' ? found : !found };
}

/** Every expectation of a case against an answer, each passed or failed, in a fixed order. */
export function checkAnswer(expect: TestExpectations, answer: CheckedAnswer): CheckResult[] {
  const results: CheckResult[] = [];
  for (const m of expect.contains ?? []) results.push(matcherResult('contains', m, answer.text));
  for (const m of expect.notContains ?? []) results.push(matcherResult('notContains', m, answer.text));
  if (expect.handoff === true) results.push({ check: 'handoff', expected: 'hands off', passed: answer.handoff });
  if (expect.handoff === false) results.push({ check: 'noHandoff', expected: 'answers without handing off', passed: !answer.handoff });
  if (expect.citesDocumentId) results.push({ check: 'cites', expected: expect.citesDocumentId, passed: answer.documentIds.includes(expect.citesDocumentId) });
  if (expect.maxChars !== undefined) results.push({ check: 'maxChars', expected: `at most ${expect.maxChars} characters`, passed: answer.text.length <= expect.maxChars });
  return results;
}
