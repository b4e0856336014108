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
