import { describe, expect, it } from 'vitest';
import { checkAnswer } from '../../../../../src/domain/agents/testCases/checks.js';

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
  it('given `(a+)+$` and the longest answer (65,536 characters), when the case is checked, then it is decided on what the answer holds, the same way every time', () => {
    const answer = { text: `${'a'.repeat(65_535)}!`, handoff: false, documentIds: [] };
    const expectations = { contains: [{ kind: 'regex' as const, value: '(a+)+$' }, { kind: 'regex' as const, value: '(a|aa)+!' }], notContains: [{ kind: 'regex' as const, value: '(a|aa)+$' }, { kind: 'regex' as const, value: '^(a+)+!$' }] };
    const started = performance.now();
    const runs = Array.from({ length: 3 }, () => checkAnswer(expectations, answer));
    // Generous for a loaded 2-core machine: a backtracking engine does not finish these in a lifetime.
    expect(performance.now() - started).toBeLessThan(5_000);
    for (const results of runs) {
      expect(results).toEqual([
        { check: 'contains', expected: '/(a+)+$/', passed: false },
        { check: 'contains', expected: '/(a|aa)+!/', passed: true },
        { check: 'notContains', expected: '/(a|aa)+$/', passed: true },
        { check: 'notContains', expected: '/^(a+)+!$/', passed: false },
      ]);
    }
  });

  it('given an ordinary expression on the longest answer, then it is checked as before, case-insensitively', () => {
    const answer = { text: `${'x'.repeat(65_000)} Refund within 14 days`, handoff: false, documentIds: [] };
    expect(checkAnswer({ contains: [{ kind: 'regex', value: 'refund within \\d+ days' }], notContains: [{ kind: 'regex', value: 'dogecoin|HANDOFF' }] }, answer)).toEqual([
      { check: 'contains', expected: '/refund within \\d+ days/', passed: true },
      { check: 'notContains', expected: '/dogecoin|HANDOFF/', passed: true },
    ]);
  });

  it('given an expression saved before the engine changed that it cannot run (a lookahead), then its check fails saying why, the same way every time', () => {
    const answer = { text: 'Refund now', handoff: false, documentIds: [] };
    const results = checkAnswer({ contains: [{ kind: 'regex', value: 'refund(?= now)' }] }, answer);
    expect(results).toEqual([{ check: 'contains', expected: '/refund(?= now)/', passed: false, reason: expect.stringContaining('lookahead and lookbehind') }]);
  });
});
