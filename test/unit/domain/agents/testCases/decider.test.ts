import { describe, expect, it } from 'vitest';
import { testCasesDecider } from '../../../../../src/domain/agents/testCases/decider.js';
import { ACTION_MOCKS_LIMITS, type AgentTestCaseEvent, type TestCaseBody } from '../../../../../src/domain/agents/testCases/events.js';
import { specFor } from '../../../../support/gwt.js';

const A1 = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const C1 = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc';
const C2 = 'dddddddd-dddd-4ddd-8ddd-dddddddddddd';
const K1 = '11111111-1111-4111-8111-111111111111';
const K2 = '22222222-2222-4222-8222-222222222222';
const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-02T00:00:00.000Z';
const BY = 'user:33333333-3333-4333-8333-333333333333';

const spec = specFor(testCasesDecider);
const body: TestCaseBody = { name: 'Cheques', turns: ['Can I pay with a cheque?'], expect: { handoff: true, notContains: [{ kind: 'text', value: 'yes' }] }, required: true };
const saved = (caseId: string, b: TestCaseBody = body, at = T0): AgentTestCaseEvent => ({ type: 'AgentTestCaseSaved', data: { ...b, caseId, agentId: A1, companyId: C1, by: BY, at } });
const save = (caseId: string, b: TestCaseBody, create: boolean, companyId = C1) =>
  ({ type: 'SaveTestCase', caseId, agentId: A1, companyId, body: b, create, by: BY, now: T1 }) as const;

describe('agent test cases', () => {
  it('saves a new case, then replaces it whole; the creation time stays', () => {
    spec.given([]).when(save(K1, body, true)).then([saved(K1, body, T1)]);
    const changed = { ...body, turns: ['Hello', 'Can I pay with a cheque?'] };
    const state = spec.given([saved(K1)]).when(save(K1, changed, false)).then([saved(K1, changed, T1)]);
    expect(state.cases[K1]).toMatchObject({ turns: ['Hello', 'Can I pay with a cheque?'], createdAt: T0, updatedAt: T1 });
  });

  it('removes a case', () => {
    const state = spec.given([saved(K1), saved(K2)]).when({ type: 'RemoveTestCase', caseId: K1, companyId: C1, by: BY, now: T1 }).then([{ type: 'AgentTestCaseRemoved', data: { caseId: K1, by: BY, at: T1 } }]);
    expect(Object.keys(state.cases)).toEqual([K2]);
  });

  it('a missing case, or another company’s, is NOT_FOUND; creating one twice is a CONFLICT', () => {
    spec.given([]).when(save(K1, body, false)).thenThrows('NOT_FOUND');
    spec.given([]).when({ type: 'RemoveTestCase', caseId: K1, companyId: C1, by: BY, now: T1 }).thenThrows('NOT_FOUND');
    spec.given([saved(K1)]).when(save(K1, body, false, C2)).thenThrows('NOT_FOUND');
    spec.given([saved(K1)]).when(save(K1, body, true)).thenThrows('CONFLICT');
  });

  it('refuses a case without turns, or with a regular expression that does not compile', () => {
    spec.given([]).when(save(K1, { ...body, turns: [] }, true)).thenThrows('VALIDATION_ERROR');
    spec.given([]).when(save(K1, { ...body, expect: { contains: [{ kind: 'regex', value: '(unclosed' }] } }, true)).thenThrows('VALIDATION_ERROR');
  });

  it('refuses a regular expression that needs a backtracking engine (a backreference, a lookahead), naming the matcher', () => {
    for (const [value, field, why] of [
      ['(a)\\1', 'expect.contains.0.value', 'backreference'],
      ['refund(?= now)', 'expect.contains.0.value', 'lookahead and lookbehind'],
    ] as const) {
      spec.given([]).when(save(K1, { ...body, expect: { contains: [{ kind: 'regex', value }] } }, true)).thenThrows('VALIDATION_ERROR');
      expect(() => testCasesDecider.decide(save(K1, { ...body, expect: { contains: [{ kind: 'regex', value }] } }, true), testCasesDecider.initialState)).toThrowError(
        expect.objectContaining({ message: expect.stringMatching(new RegExp(`^${field.replace(/\./g, '\\.')}: .*${why}`)) }),
      );
    }
    const second = { ...body, expect: { notContains: [{ kind: 'regex' as const, value: 'fine' }, { kind: 'regex' as const, value: '(?<!not )sure' }] } };
    expect(() => testCasesDecider.decide(save(K1, second, true), testCasesDecider.initialState)).toThrowError(expect.objectContaining({ message: expect.stringMatching(/^expect\.notContains\.1\.value: /) }));
  });

  it('saves the expressions cases use: anchors, classes, alternatives, counts, word boundaries', () => {
    for (const value of ['^yes', '\\d+ working days', 'dogecoin|HANDOFF', '\\brefund(s|ed)?\\b', '(a+)+$']) {
      spec.given([]).when(save(K1, { ...body, expect: { contains: [{ kind: 'regex', value }] } }, true)).then([saved(K1, { ...body, expect: { contains: [{ kind: 'regex', value }] } }, T1)]);
    }
  });

  it('bounds the mocks as a sample response: together as long as one, each as deep; past either (100,000 levels included) is VALIDATION_ERROR naming them', () => {
    const nested = (depth: number) => {
      let value: unknown = 1;
      for (let i = 0; i < depth; i++) value = [value];
      return value as never;
    };
    const fits = { lookup: nested(ACTION_MOCKS_LIMITS.depth), cancel: 'x'.repeat(ACTION_MOCKS_LIMITS.chars - 200) };
    spec.given([]).when(save(K1, { ...body, actionMocks: fits }, true)).then([saved(K1, { ...body, actionMocks: fits }, T1)]);
    const refused: NonNullable<TestCaseBody['actionMocks']>[] = [{ lookup: nested(ACTION_MOCKS_LIMITS.depth + 1) }, { lookup: nested(100_000) }, { a: 'x'.repeat(ACTION_MOCKS_LIMITS.chars / 2), b: 'x'.repeat(ACTION_MOCKS_LIMITS.chars / 2) }];
    for (const actionMocks of refused) {
      spec.given([]).when(save(K1, { ...body, actionMocks }, true)).thenThrows('VALIDATION_ERROR', /^actionMocks: /);
      spec.given([saved(K1)]).when(save(K1, { ...body, actionMocks }, false)).thenThrows('VALIDATION_ERROR', /^actionMocks: /);
    }
  });
});
