import { describe, expect, it } from 'vitest';
import { creditsDecider } from '../../../../src/domain/credits/decider.js';
import { type CreditEvent } from '../../../../src/domain/credits/events.js';
import { specFor } from '../../../support/gwt.js';

const T0 = '2026-01-01T00:00:00.000Z';

describe('registration', () => {
  it('grants $5.00 of free credits as 5,000,000 micro-dollars', () => {
    specFor(creditsDecider)
      .given([])
      .when({ type: 'GrantCredits', amountMicros: 5_000_000, reason: 'signup', grantedBy: null, now: T0 })
      .then([{ type: 'CreditsGranted', data: { amountMicros: 5_000_000, reason: 'signup', grantedBy: null, at: T0 } }]);
  });
});

describe('credits', () => {
  const credits = specFor(creditsDecider);
  const granted: CreditEvent = { type: 'CreditsGranted', data: { amountMicros: 1000, reason: 'x', grantedBy: null, at: T0 } };
  const consume = (cost: number, replyId = 'r1') =>
    ({ type: 'ConsumeCredits', costMicros: cost, model: 'gpt-4o-mini', inputTokens: 10, outputTokens: 5, conversationId: 'c', replyId, now: T0 }) as const;
  it('never goes below zero: the last reply is charged what is left', () => {
    const state = credits.given([granted]).when(consume(1500)).then([
      { type: 'CreditsConsumed', data: { amountMicros: 1000, model: 'gpt-4o-mini', inputTokens: 10, outputTokens: 5, conversationId: 'c', replyId: 'r1', at: T0 } },
    ]);
    expect(state.balanceMicros).toBe(0);
  });
  it('charges a reply once even when the charge is retried', () => {
    const once = creditsDecider.evolve(creditsDecider.evolve(creditsDecider.initialState, granted), creditsDecider.decide(consume(100), creditsDecider.evolve(creditsDecider.initialState, granted))[0]!);
    expect(creditsDecider.decide(consume(100), once)).toEqual([]);
  });
  it('the ledger says whether the charged usage is the endpoint\u2019s report or the service\u2019s estimate', () => {
    credits.given([granted]).when({ ...consume(100), usageSource: 'estimated' }).then([
      { type: 'CreditsConsumed', data: { amountMicros: 100, model: 'gpt-4o-mini', inputTokens: 10, outputTokens: 5, usageSource: 'estimated', conversationId: 'c', replyId: 'r1', at: T0 } },
    ]);
  });
  it('refuses a grant that is not a positive integer', () => {
    credits.given([]).when({ type: 'GrantCredits', amountMicros: 0.5, reason: 'x', grantedBy: null, now: T0 }).thenThrows('VALIDATION_ERROR');
  });
});
