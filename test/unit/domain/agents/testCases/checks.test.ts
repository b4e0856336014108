import { describe, expect, it } from 'vitest';
import { checkAnswer as check, type CheckedAnswer } from '../../../../../src/domain/agents/testCases/checks.js';
import type { TestExpectations } from '../../../../../src/domain/agents/testCases/events.js';
import { boundedRegexTest } from '../../../../../src/workers/boundedRegex.js';

/** The checks as the test runner makes them: each regular expression bounded in time. */
const checkAnswer = (expect: TestExpectations, answer: CheckedAnswer) => check(expect, answer, boundedRegexTest);

const DOC = '44444444-4444-4444-8444-444444444444';

describe('test case checks', () => {
  it('given an answer, then each expectation passes or fails on it', () => {
    const answer = { text: 'We ship to Norway within 5 working days.', handoff: false, documentIds: [DOC] };
    expect(
      checkAnswer(
        {
          contains: [{ kind: 'text', value: 'NORWAY' }, { kind: 'regex', value: '\\d+ working days' }],
          notContains: [{ kind: 'text', value: 'sorry' }, { kind: 'regex', value: '^we' }],
          handoff: false,
          citesDocumentId: DOC,
          maxChars: 20,
        },
        answer,
      ),
    ).toEqual([
      { check: 'contains', expected: '"NORWAY"', passed: true },
      { check: 'contains', expected: '/\\d+ working days/', passed: true },
      { check: 'notContains', expected: '"sorry"', passed: true },
      { check: 'notContains', expected: '/^we/', passed: false },
      { check: 'noHandoff', expected: 'answers without handing off', passed: true },
      { check: 'cites', expected: DOC, passed: true },
      { check: 'maxChars', expected: 'at most 20 characters', passed: false },
    ]);
  });

  it('a handoff passes "must hand off" and fails a citation it did not make', () => {
    expect(checkAnswer({ handoff: true, citesDocumentId: DOC }, { text: 'A colleague will reply.', handoff: true, documentIds: [] })).toEqual([
      { check: 'handoff', expected: 'hands off', passed: true },
      { check: 'cites', expected: DOC, passed: false },
    ]);
  });
});

describe('attack: a catastrophic regular expression in an expectation', () => {
  it('given `(a+)+$` and the longest answer, when the case is checked, then the check fails in plain words within a bounded time', () => {
    const answer = { text: `${'a'.repeat(65_000)}!`, handoff: false, documentIds: [] };
    const started = performance.now();
    const results = checkAnswer({ contains: [{ kind: 'regex', value: '(a+)+$' }], notContains: [{ kind: 'regex', value: '(a|aa)+$' }] }, answer);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(results).toEqual([
      { check: 'contains', expected: '/(a+)+$/', passed: false, reason: expect.stringContaining("took too long") },
      { check: 'notContains', expected: '/(a|aa)+$/', passed: false, reason: expect.stringContaining("took too long") },
    ]);
  });

  it('given an ordinary expression on the longest answer, then it is checked as before', () => {
    const answer = { text: `${'x'.repeat(65_000)} Refund within 14 days`, handoff: false, documentIds: [] };
    expect(checkAnswer({ contains: [{ kind: 'regex', value: 'refund within \\d+ days' }] }, answer)).toEqual([
      { check: 'contains', expected: '/refund within \\d+ days/', passed: true },
    ]);
  });
});
