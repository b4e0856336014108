import { randomUUID } from 'node:crypto';
import { emailReservationDecider, normalizeEmail } from '../../domain/accounts/emailReservation.js';
import { userDecider, userStream } from '../../domain/accounts/user.js';
import { DomainError } from '../../domain/errors.js';
import { refreshFailed, sessionDecider, sessionStream } from '../../domain/sessions/session.js';
import { WrongExpectedRevisionError } from '../../ports/errors.js';
import { handleCommand, loadState } from '../handleCommand.js';
import { randomSecret, sha256Hex } from '../hashing.js';
import type { AuthDeps } from '../ports.js';
import { emailStream } from './registerCompany.js';

export interface SessionTokens {
  access_token: string;
  refresh_token: string;
  expires_at: number;
}

const invalidCredentials = () => new DomainError('INVALID_CREDENTIALS', 'Wrong email or password');

/** Refresh tokens are `<sessionId>.<secret>`: the id finds the stream, only the secret's hash is stored. */
const splitRefreshToken = (token: string) => {
  const m = /^([0-9a-f-]{36})\.([A-Za-z0-9_-]{43})$/.exec(token);
  return m ? { sessionId: m[1]!, secret: m[2]! } : null;
};

export async function findRegisteredUser(deps: Pick<AuthDeps, 'eventStore'>, email: string) {
  const { state: guard } = await loadState(deps.eventStore, emailStream(email), emailReservationDecider);
  if (guard.status !== 'registered') return null;
  const { state: user } = await loadState(deps.eventStore, userStream(guard.userId), userDecider);
  return user.exists ? user : null;
}

export async function login(deps: AuthDeps, input: { email: string; password: string }) {
  const user = await findRegisteredUser(deps, normalizeEmail(input.email));
  if (!user) {
    await deps.hasher.verifyDummy(input.password);
    throw invalidCredentials();
  }
  if (!(await deps.hasher.verify(user.passwordHash, input.password))) throw invalidCredentials();

  const sessionId = randomUUID();
  const secret = randomSecret();
  const now = deps.clock.now();
  await handleCommand(
    deps.eventStore,
    sessionStream(sessionId),
    sessionDecider,
    {
      type: 'StartSession',
      sessionId,
      userId: user.userId,
      companyId: user.companyId,
      tokenHash: sha256Hex(secret),
      now: now.toISOString(),
      expiresAt: new Date(now.getTime() + deps.refreshTokenTtlMs).toISOString(),
    },
    { metadata: { companyId: user.companyId, actor: `user:${user.userId}` } },
  );
  const access = await deps.tokens.issue({ userId: user.userId, companyId: user.companyId, companyKey: user.companyKey, sessionId });
  return {
    session: { access_token: access.token, refresh_token: `${sessionId}.${secret}`, expires_at: access.expiresAt } satisfies SessionTokens,
    user: { id: user.userId, email: user.email, companyId: user.companyKey },
  };
}

/**
 * Rotation is appended with the revision it was decided on and is never retried: of two concurrent
 * refreshes with one token exactly one wins, the other fails without being mistaken for token theft.
 */
export async function refreshSession(deps: AuthDeps, refreshToken: string): Promise<{ session: SessionTokens }> {
  const parts = splitRefreshToken(refreshToken);
  if (!parts) throw refreshFailed();
  const secret = randomSecret();
  const now = deps.clock.now();
  let result;
  try {
    result = await handleCommand(
      deps.eventStore,
      sessionStream(parts.sessionId),
      sessionDecider,
      {
        type: 'RefreshSession',
        presentedHash: sha256Hex(parts.secret),
        newHash: sha256Hex(secret),
        now: now.toISOString(),
        expiresAt: new Date(now.getTime() + deps.refreshTokenTtlMs).toISOString(),
      },
      { maxRetries: 0 },
    );
  } catch (err) {
    if (err instanceof WrongExpectedRevisionError) throw refreshFailed();
    throw err;
  }
  if (result.events.some((e) => e.type === 'SessionRevoked')) {
    deps.logger.warn({ sessionId: parts.sessionId }, 'refresh token reuse detected: session family revoked');
    throw refreshFailed();
  }
  const state = result.state;
  if (state.status !== 'active') throw refreshFailed();
  const { state: user } = await loadState(deps.eventStore, userStream(state.userId), userDecider);
  if (!user.exists) throw refreshFailed();
  const access = await deps.tokens.issue({ userId: user.userId, companyId: user.companyId, companyKey: user.companyKey, sessionId: parts.sessionId });
  return { session: { access_token: access.token, refresh_token: `${parts.sessionId}.${secret}`, expires_at: access.expiresAt } };
}

export async function logout(deps: AuthDeps, sessionId: string): Promise<void> {
  await handleCommand(deps.eventStore, sessionStream(sessionId), sessionDecider, { type: 'RevokeSession', now: deps.clock.now().toISOString() });
}

/** Access tokens die with their session: logout or detected reuse ends them before `exp`. */
export async function isSessionActive(deps: Pick<AuthDeps, 'eventStore'>, sessionId: string): Promise<boolean> {
  const { state } = await loadState(deps.eventStore, sessionStream(sessionId), sessionDecider);
  return state.status === 'active';
}
