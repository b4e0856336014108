import { createHmac, randomUUID } from 'node:crypto';
import { emailReservationDecider, normalizeEmail } from '../../domain/accounts/emailReservation/decider.js';
import { userDecider, userStream } from '../../domain/accounts/user/decider.js';
import { DomainError } from '../../domain/errors.js';
import { loginSessionDecider, loginSessionStream, refreshFailed } from '../../domain/logins/decider.js';
import { rotationsBehindHead } from '../../domain/logins/state.js';
import { WrongExpectedRevisionError } from '../../ports/errors.js';
import { handleCommand, loadState } from '../handleCommand.js';
import { randomSecret, sha256Hex } from '../hashing.js';
import type { AuthDeps } from '../deps.js';
import { memberRole } from './membership.js';
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
  return user.status === 'active' ? user : null;
}

export async function login(deps: AuthDeps, input: { email: string; password: string }) {
  const user = await findRegisteredUser(deps, normalizeEmail(input.email));
  if (!user) {
    await deps.hasher.verifyDummy(input.password);
    throw invalidCredentials();
  }
  if (!(await deps.hasher.verify(user.passwordHash, input.password))) throw invalidCredentials();
  // A removed teammate's email is released; this covers the moment in between.
  if (!(await memberRole(deps, user.companyId, user.userId))) throw invalidCredentials();
  return startLogin(deps, user);
}

/** Opens a login session (a refresh-token family) for a user whose credentials were just checked. */
export async function startLogin(deps: AuthDeps, user: { userId: string; companyId: string; companyKey: number; email: string }) {
  const sessionId = randomUUID();
  const secret = randomSecret();
  const now = deps.clock.now();
  await handleCommand(
    deps.eventStore,
    loginSessionStream(sessionId),
    loginSessionDecider,
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
 * The token a refresh token is rotated into: HMAC(server key, the presented token), not a random one, so a
 * concurrent refresh that lost the race, and a late tab within the grace window, can be handed the very
 * token the winner got (walking the chain on to the current head), on any instance, without it being
 * stored anywhere.
 *
 * Why derived and not sealed: sealing the new token with the secretBox would put every live refresh token
 * into the event log for good (events are immutable, backups keep them), readable by whoever has the
 * master key and a copy of the events. Deriving stores only hashes; a successor can only be computed by
 * someone holding both the server key and its predecessor token. The predecessor comes from the login's
 * random token, so the chain is as unguessable as that; and a holder of the predecessor gains nothing new,
 * since within the grace window the server answers it with the head anyway and after it the replay revokes
 * the family. Access tokens need neither: they are stateless JWTs bound to the session, so each caller gets
 * a fresh one, and none is ever stored.
 */
const successorSecret = (deps: Pick<AuthDeps, 'refreshTokenKey'>, sessionId: string, secret: string) =>
  createHmac('sha256', deps.refreshTokenKey).update(`refresh:${sessionId}.${secret}`).digest('base64url');

/**
 * Rotates the refresh token. A conflicting concurrent refresh is retried: on the fresh stream it finds its
 * token rotated moments ago (within `refreshReuseGraceMs`) and gets the current head of the family, so
 * both tabs keep the same session. The same token presented after the grace window revokes the family.
 */
export async function refreshSession(deps: AuthDeps, refreshToken: string): Promise<{ session: SessionTokens }> {
  const parts = splitRefreshToken(refreshToken);
  if (!parts) throw refreshFailed();
  const { sessionId } = parts;
  const presentedHash = sha256Hex(parts.secret);
  const next = successorSecret(deps, sessionId, parts.secret);
  const now = deps.clock.now().toISOString();
  let result;
  try {
    result = await handleCommand(
      deps.eventStore,
      loginSessionStream(sessionId),
      loginSessionDecider,
      {
        type: 'RefreshSession',
        presentedHash,
        newHash: sha256Hex(next),
        now,
        expiresAt: new Date(Date.parse(now) + deps.refreshTokenTtlMs).toISOString(),
        graceMs: deps.refreshReuseGraceMs,
      },
      { maxRetries: 10 },
    );
  } catch (err) {
    // Still losing after the retries (a flood on one session): refuse this one, revoke nothing.
    if (err instanceof WrongExpectedRevisionError) throw refreshFailed();
    throw err;
  }
  if (result.events.some((e) => e.type === 'SessionRevoked')) {
    deps.logger.warn({ sessionId }, 'refresh token reuse detected: session family revoked');
    throw refreshFailed();
  }
  const state = result.state;
  if (state.status !== 'active') throw refreshFailed();

  let secret = next;
  if (result.events.length === 0) {
    // Rotated moments ago by a concurrent refresh: walk the derived chain on to the current head.
    const behind = rotationsBehindHead(state, presentedHash, now, deps.refreshReuseGraceMs);
    secret = parts.secret;
    for (let i = 0; i < (behind ?? 0); i++) secret = successorSecret(deps, sessionId, secret);
    if (behind === null || sha256Hex(secret) !== state.currentHash) {
      // Only when the server key changed in between (JWT_SECRET rotated): refuse, revoke nothing.
      deps.logger.warn({ sessionId }, 'refresh within the grace window could not derive the current token; refused');
      throw refreshFailed();
    }
  }
  const { state: user } = await loadState(deps.eventStore, userStream(state.userId), userDecider);
  if (user.status !== 'active') throw refreshFailed();
  if (!(await memberRole(deps, user.companyId, user.userId))) throw refreshFailed();
  const access = await deps.tokens.issue({ userId: user.userId, companyId: user.companyId, companyKey: user.companyKey, sessionId });
  return { session: { access_token: access.token, refresh_token: `${sessionId}.${secret}`, expires_at: access.expiresAt } };
}

export async function logout(deps: Pick<AuthDeps, 'eventStore' | 'clock'>, sessionId: string, reason: 'logout' | 'member_removed' = 'logout'): Promise<void> {
  await handleCommand(deps.eventStore, loginSessionStream(sessionId), loginSessionDecider, { type: 'RevokeSession', now: deps.clock.now().toISOString(), reason });
}

/** Access tokens die with their session: logout or detected reuse ends them before `exp`. */
export async function isSessionActive(deps: Pick<AuthDeps, 'eventStore'>, sessionId: string): Promise<boolean> {
  const { state } = await loadState(deps.eventStore, loginSessionStream(sessionId), loginSessionDecider);
  return state.status === 'active';
}
