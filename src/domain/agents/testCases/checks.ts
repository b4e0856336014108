import { createContext, Script } from 'node:vm';
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
 * How long one regular expression may run on one answer. A team's expression can backtrack catastrophically
 * (`(a+)+$` on a long answer runs for years), and checks run on the replay worker's thread: past this budget the
 * expression is stopped and its check fails, saying why. An ordinary expression takes well under a millisecond
 * on the longest answer (65,536 characters).
 */
export const REGEX_BUDGET_MS = 50;
export const REGEX_TOO_SLOW = `the regular expression took too long on this answer (over ${REGEX_BUDGET_MS} ms) and was stopped: simplify it (no nested repetition such as (a+)+)`;

// A context of its own: V8 can interrupt a running expression only through a script run with a timeout.
const regexTest = new Script('new RegExp(source, "iu").test(text)');
const sandbox = createContext({ source: '', text: '' });

function regexMatches(source: string, text: string): boolean | 'too_slow' {
  Object.assign(sandbox, { source, text });
  try {
    return regexTest.runInContext(sandbox, { timeout: REGEX_BUDGET_MS }) === true;
  } catch (err) {
    if ((err as { code?: unknown }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') return 'too_slow';
    throw err;
  } finally {
    Object.assign(sandbox, { source: '', text: '' });
  }
}

const matches = (m: TextMatcher, text: string) => (m.kind === 'text' ? text.toLowerCase().includes(m.value.toLowerCase()) : regexMatches(m.value, text));
const shownMatcher = (m: TextMatcher) => (m.kind === 'regex' ? `/${m.value}/` : JSON.stringify(m.value));

/** A matcher's check: an expression stopped for taking too long neither matches nor fails to: the check fails. */
function matcherResult(check: 'contains' | 'notContains', m: TextMatcher, text: string): CheckResult {
  const found = matches(m, text);
  if (found === 'too_slow') return { check, expected: shownMatcher(m), passed: false, reason: REGEX_TOO_SLOW };
  return { check, expected: shownMatcher(m), passed: check === 'contains' ? found : !found };
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
