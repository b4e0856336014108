import { describe, expect, it } from 'vitest';
import { loginSessionDecider } from '../../../../src/domain/logins/decider.js';
import { rotationsBehindHead } from '../../../../src/domain/logins/state.js';
import { type LoginSessionEvent } from '../../../../src/domain/logins/events.js';
import { specFor } from '../../../support/gwt.js';

const U1 = '11111111-1111-4111-8111-111111111111';
const U2 = '22222222-2222-4222-8222-222222222222';
const C1 = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc';
const T0 = '2026-01-01T00:00:00.000Z';
const h = (c: string) => c.repeat(64);

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
