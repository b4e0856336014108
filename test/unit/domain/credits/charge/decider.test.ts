import { describe, expect, it } from 'vitest';
import { chargeDecider } from '../../../../../src/domain/credits/charge/decider.js';
import type { ChargeEvent } from '../../../../../src/domain/credits/charge/events.js';
import { specFor } from '../../../../support/gwt.js';

const T0 = '2026-01-01T00:00:00.000Z';
const attempted = (debitRevision: string): ChargeEvent => ({ type: 'ChargeAttempted', data: { replyId: 'r1', companyId: 'c1', debitRevision, at: T0 } });
const attempt = (debitRevision: bigint) => ({ type: 'AttemptCharge', replyId: 'r1', companyId: 'c1', debitRevision, now: T0 }) as const;

describe('the guard of one reply\u2019s charge', () => {
  const charge = specFor(chargeDecider);

  it('records where the first attempt puts the charge in the credits stream', () => {
    const state = charge.given([]).when(attempt(0n)).then([attempted('0')]);
    expect(state.debitRevision).toBe(0n);
  });

  it('records a new attempt at another revision (the credits stream moved on), and the latest one counts', () => {
    const state = charge.given([attempted('4')]).when(attempt(9n)).then([attempted('9')]);
    expect(state.debitRevision).toBe(9n);
  });

  it('records nothing for another attempt at the revision already recorded', () => {
    charge.given([attempted('4')]).when(attempt(4n)).then([]);
  });
});
