import { describe, expect, it } from 'vitest';
import { emailReservationDecider } from '../../../../../src/domain/accounts/emailReservation/decider.js';
import { type EmailReservationEvent } from '../../../../../src/domain/accounts/emailReservation/events.js';
import { userDecider } from '../../../../../src/domain/accounts/user/decider.js';
import { type UserEvent } from '../../../../../src/domain/accounts/user/events.js';
import { apiTokenDecider } from '../../../../../src/domain/apiTokens/decider.js';
import { type ApiTokenEvent } from '../../../../../src/domain/apiTokens/events.js';
import { companyDecider, DEFAULT_PIPELINE_STAGES } from '../../../../../src/domain/company/decider.js';
import { creditsDecider } from '../../../../../src/domain/credits/decider.js';
import { type CreditEvent } from '../../../../../src/domain/credits/events.js';
import { sequenceDecider } from '../../../../../src/domain/sequence/decider.js';
import { loginSessionDecider } from '../../../../../src/domain/logins/decider.js';
import { rotationsBehindHead } from '../../../../../src/domain/logins/state.js';
import { type LoginSessionEvent } from '../../../../../src/domain/logins/events.js';
import { specFor } from '../../../../support/gwt.js';

const U1 = '11111111-1111-4111-8111-111111111111';
const U2 = '22222222-2222-4222-8222-222222222222';
const C1 = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc';
const T0 = '2026-01-01T00:00:00.000Z';
const h = (c: string) => c.repeat(64);

describe('registration', () => {
  const email = specFor(emailReservationDecider);
  const reserved: EmailReservationEvent = { type: 'EmailReserved', data: { userId: U1, at: T0 } };

  it('reserves a free email', () => {
    email.given([]).when({ type: 'ReserveEmail', userId: U1, now: T0 }).then([reserved]);
  });
  it('refuses an email already registered', () => {
    email
      .given([reserved, { type: 'RegistrationCompleted', data: { userId: U1, companyId: C1 } }])
      .when({ type: 'ReserveEmail', userId: U2, now: '2026-02-01T00:00:00.000Z' })
      .thenThrows('EMAIL_TAKEN');
  });
  it('refuses an email reserved moments ago by a registration still running', () => {
    email.given([reserved]).when({ type: 'ReserveEmail', userId: U2, now: '2026-01-01T00:01:00.000Z' }).thenThrows('EMAIL_TAKEN');
  });
  it('takes over a reservation left stale by a registration that never completed', () => {
    email
      .given([reserved])
      .when({ type: 'ReserveEmail', userId: U2, now: '2026-01-01T00:06:00.000Z' })
      .then([{ type: 'EmailReserved', data: { userId: U2, at: '2026-01-01T00:06:00.000Z' } }]);
  });
  it('completes only the registration holding the reservation', () => {
    email.given([reserved]).when({ type: 'CompleteRegistration', userId: U2, companyId: C1 }).thenThrows('EMAIL_TAKEN');
    email.given([reserved]).when({ type: 'CompleteRegistration', userId: U1, companyId: C1 }).then([{ type: 'RegistrationCompleted', data: { userId: U1, companyId: C1 } }]);
  });
  it('releases a reservation after a failed registration, and ignores a release by someone else', () => {
    email.given([reserved]).when({ type: 'ReleaseEmail', userId: U1 }).then([{ type: 'EmailReservationReleased', data: { userId: U1 } }]);
    email.given([reserved]).when({ type: 'ReleaseEmail', userId: U2 }).then([]);
  });

  it('creates the company with the 6-stage default pipeline', () => {
    const stageIds = Array.from({ length: 6 }, (_, i) => `00000000-0000-4000-8000-00000000000${i}`);
    const events = companyDecider.decide(
      { type: 'RegisterCompany', companyId: C1, companyKey: 7, name: 'Acme', ownerUserId: U1, now: T0, pipelineId: U2, stageIds },
      companyDecider.initialState,
    );
    expect(events.map((e) => e.type)).toEqual(['CompanyRegistered', 'PipelineCreated']);
    const pipeline = events[1]!.data as { stages: { id: string; name: string; position: number }[] };
    expect(pipeline.stages).toHaveLength(6);
    expect(pipeline.stages.map((s) => s.name)).toEqual([...DEFAULT_PIPELINE_STAGES]);
    expect(pipeline.stages.map((s) => s.position)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('numbers companies from a sequence', () => {
    specFor(sequenceDecider)
      .given([{ type: 'SequenceValueReserved', data: { value: 41, reservedFor: 'x' } }])
      .when({ reservedFor: C1 })
      .then([{ type: 'SequenceValueReserved', data: { value: 42, reservedFor: C1 } }]);
  });

  it('grants $5.00 of free credits as 5,000,000 micro-dollars', () => {
    specFor(creditsDecider)
      .given([])
      .when({ type: 'GrantCredits', amountMicros: 5_000_000, reason: 'signup', grantedBy: null, now: T0 })
      .then([{ type: 'CreditsGranted', data: { amountMicros: 5_000_000, reason: 'signup', grantedBy: null, at: T0 } }]);
  });
});

describe('refresh token rotation (RFC 9700)', () => {
  const session = specFor(loginSessionDecider);
  const started: LoginSessionEvent = {
    type: 'SessionStarted',
    data: { sessionId: U2, userId: U1, companyId: C1, tokenHash: h('a'), startedAt: T0, expiresAt: '2026-01-31T00:00:00.000Z' },
  };
  const rotated: LoginSessionEvent = { type: 'RefreshTokenRotated', data: { fromHash: h('a'), toHash: h('b'), at: T0, expiresAt: '2026-01-31T00:00:00.000Z' } };
  const refresh = (presented: string, now = '2026-01-02T00:00:00.000Z') =>
    ({ type: 'RefreshSession', presentedHash: h(presented), newHash: h('c'), now, expiresAt: '2026-02-01T00:00:00.000Z', graceMs: 30_000 }) as const;

  it('rotates the current token', () => {
    session.given([started]).when(refresh('a')).then([
      { type: 'RefreshTokenRotated', data: { fromHash: h('a'), toHash: h('c'), at: '2026-01-02T00:00:00.000Z', expiresAt: '2026-02-01T00:00:00.000Z' } },
    ]);
  });
  it('revokes the whole family when a rotated token is presented again', () => {
    const after = session.given([started, rotated]).when(refresh('a')).then([{ type: 'SessionRevoked', data: { reason: 'reuse_detected', at: '2026-01-02T00:00:00.000Z' } }]);
    expect(after.status).toBe('revoked');
  });
  it('a rotated token presented again within the grace window changes nothing (a concurrent refresh, not a replay)', () => {
    const state = session.given([started, rotated]).when(refresh('a', '2026-01-01T00:00:30.000Z')).then([]);
    expect(state).toMatchObject({ status: 'active', currentHash: h('b') });
    expect(rotationsBehindHead(state, h('a'), '2026-01-01T00:00:30.000Z', 30_000)).toBe(1);
  });
  it('within the grace window a token several rotations behind finds the head', () => {
    const rotatedAgain: LoginSessionEvent = { type: 'RefreshTokenRotated', data: { fromHash: h('b'), toHash: h('d'), at: '2026-01-01T00:00:10.000Z', expiresAt: '2026-01-31T00:00:00.000Z' } };
    const state = session.given([started, rotated, rotatedAgain]).when(refresh('a', '2026-01-01T00:00:20.000Z')).then([]);
    expect(rotationsBehindHead(state, h('a'), '2026-01-01T00:00:20.000Z', 30_000)).toBe(2);
    expect(rotationsBehindHead(state, h('b'), '2026-01-01T00:00:20.000Z', 30_000)).toBe(1);
    // The grace window runs from each token's own rotation.
    session.given([started, rotated, rotatedAgain]).when(refresh('a', '2026-01-01T00:00:35.000Z')).then([{ type: 'SessionRevoked', data: { reason: 'reuse_detected', at: '2026-01-01T00:00:35.000Z' } }]);
  });
  it('one millisecond after the grace window the same token is a replay: the family is revoked', () => {
    session.given([started, rotated]).when(refresh('a', '2026-01-01T00:00:30.001Z')).then([{ type: 'SessionRevoked', data: { reason: 'reuse_detected', at: '2026-01-01T00:00:30.001Z' } }]);
  });
  it('a grace window of 0 treats every second presentation as a replay', () => {
    session.given([started, rotated]).when({ ...refresh('a', '2026-01-01T00:00:00.001Z'), graceMs: 0 }).then([{ type: 'SessionRevoked', data: { reason: 'reuse_detected', at: '2026-01-01T00:00:00.001Z' } }]);
  });
  it('within the grace window, a revoked or expired family still refuses', () => {
    session.given([started, rotated, { type: 'SessionRevoked', data: { reason: 'logout', at: T0 } }]).when(refresh('a', '2026-01-01T00:00:05.000Z')).thenThrows('REFRESH_FAILED');
    const shortLived: LoginSessionEvent = { type: 'RefreshTokenRotated', data: { fromHash: h('a'), toHash: h('b'), at: T0, expiresAt: '2026-01-01T00:00:01.000Z' } };
    session.given([started, shortLived]).when(refresh('a', '2026-01-01T00:00:05.000Z')).thenThrows('REFRESH_FAILED');
  });
  it('refuses the newest token once the family is revoked', () => {
    session.given([started, rotated, { type: 'SessionRevoked', data: { reason: 'reuse_detected', at: T0 } }]).when(refresh('b')).thenThrows('REFRESH_FAILED');
  });
  it('refuses an unknown token without revoking anything', () => {
    session.given([started]).when(refresh('f')).thenThrows('REFRESH_FAILED');
  });
  it('refuses an expired refresh token', () => {
    session.given([started]).when(refresh('a', '2026-02-15T00:00:00.000Z')).thenThrows('REFRESH_FAILED');
  });
  it('refuses a session that does not exist', () => {
    session.given([]).when(refresh('a')).thenThrows('REFRESH_FAILED');
  });
  it('logs out once; a second logout changes nothing', () => {
    session.given([started]).when({ type: 'RevokeSession', now: T0 }).then([{ type: 'SessionRevoked', data: { reason: 'logout', at: T0 } }]);
    session.given([started, { type: 'SessionRevoked', data: { reason: 'logout', at: T0 } }]).when({ type: 'RevokeSession', now: T0 }).then([]);
  });
});

describe('superadmin (an operator command on an existing account)', () => {
  const user = specFor(userDecider);
  const registered: UserEvent = {
    type: 'UserRegistered',
    data: { userId: U1, email: 'root@example.com', passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$x$y', companyId: C1, companyKey: 1, createdAt: T0 },
  };
  const granted: UserEvent = { type: 'SuperadminGranted', data: { by: 'cli:ops', at: T0 } };
  const grant = { type: 'GrantSuperadmin', by: 'cli:ops', now: T0 } as const;
  const revoke = { type: 'RevokeSuperadmin', by: 'cli:ops', now: T0 } as const;

  it('a registered user is not a superadmin', () => {
    expect(user.given([registered]).state).toMatchObject({ status: 'active', isSuperadmin: false });
  });
  it('grants it to an existing account', () => {
    const state = user.given([registered]).when(grant).then([granted]);
    expect(state).toMatchObject({ isSuperadmin: true });
  });
  it('refuses an account that does not exist: nothing can be granted ahead of a registration', () => {
    user.given([]).when(grant).thenThrows('NOT_FOUND');
    user.given([]).when(revoke).thenThrows('NOT_FOUND');
  });
  it('granting twice records it once', () => {
    user.given([registered, granted]).when(grant).then([]);
  });
  it('revokes it; revoking a non-superadmin changes nothing', () => {
    const state = user.given([registered, granted]).when(revoke).then([{ type: 'SuperadminRevoked', data: { by: 'cli:ops', at: T0 } }]);
    expect(state).toMatchObject({ isSuperadmin: false });
    user.given([registered]).when(revoke).then([]);
  });
});

describe('company API tokens', () => {
  const token = specFor(apiTokenDecider);
  const issued: ApiTokenEvent = {
    type: 'ApiTokenIssued',
    data: { tokenId: U2, companyId: C1, name: 'ci', prefix: 'mas_abcdefgh', secretHash: h('d'), createdAt: T0, createdBy: U1 },
  };
  it('records use at most once a minute', () => {
    token.given([issued]).when({ type: 'RecordApiTokenUse', now: '2026-01-01T00:00:10.000Z' }).then([{ type: 'ApiTokenUsed', data: { at: '2026-01-01T00:00:10.000Z' } }]);
    token.given([issued, { type: 'ApiTokenUsed', data: { at: '2026-01-01T00:00:10.000Z' } }]).when({ type: 'RecordApiTokenUse', now: '2026-01-01T00:00:30.000Z' }).then([]);
  });
  it("is revoked by its own company only; another company's revoke is NOT_FOUND", () => {
    token.given([issued]).when({ type: 'RevokeApiToken', companyId: C1, revokedBy: U1, now: T0 }).then([{ type: 'ApiTokenRevoked', data: { at: T0, revokedBy: U1 } }]);
    token.given([issued]).when({ type: 'RevokeApiToken', companyId: U1, revokedBy: U1, now: T0 }).thenThrows('NOT_FOUND');
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
  it('refuses a grant that is not a positive integer', () => {
    credits.given([]).when({ type: 'GrantCredits', amountMicros: 0.5, reason: 'x', grantedBy: null, now: T0 }).thenThrows('VALIDATION_ERROR');
  });
});
