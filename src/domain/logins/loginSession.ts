import { z } from 'zod';
import type { Decider } from '../decider.js';
import { DomainError } from '../errors.js';

/**
 * A login session (not the AI session of a conversation) is a refresh-token family (RFC 9700 §4.14): each refresh rotates the token; presenting
 * a token that was already rotated away means it leaked, so the whole family is revoked.
 * Except within a short grace window after its rotation: two tabs refreshing with one token at the same
 * moment are a race, not a theft, so the late one is answered with the family's current head instead
 * (the grace window of Auth0's "reuse interval" or Okta's "grace period"). Only SHA-256 hashes of refresh
 * tokens are stored.
 */
export const loginSessionEvents = {
  SessionStarted: z.object({
    sessionId: z.uuid(),
    userId: z.uuid(),
    companyId: z.uuid(),
    tokenHash: z.string().length(64),
    startedAt: z.iso.datetime(),
    expiresAt: z.iso.datetime(),
  }),
  RefreshTokenRotated: z.object({
    fromHash: z.string().length(64),
    toHash: z.string().length(64),
    at: z.iso.datetime(),
    expiresAt: z.iso.datetime(),
  }),
  // member_removed: the user was removed from their company's team; every login of theirs ends.
  SessionRevoked: z.object({ reason: z.enum(['logout', 'reuse_detected', 'member_removed']), at: z.iso.datetime() }),
};
type Events = typeof loginSessionEvents;
export type LoginSessionEvent = { [K in keyof Events]: { type: K; data: z.infer<Events[K]> } }[keyof Events];

export type LoginSessionState =
  | { status: 'none' }
  | {
      status: 'active' | 'revoked';
      sessionId: string;
      userId: string;
      companyId: string;
      currentHash: string;
      /** Every token rotated away, oldest first, with when: a replay is judged by how long ago that was. */
      rotated: { hash: string; at: string }[];
      expiresAt: string;
    };

export type LoginSessionCommand =
  | { type: 'StartSession'; sessionId: string; userId: string; companyId: string; tokenHash: string; now: string; expiresAt: string }
  | { type: 'RefreshSession'; presentedHash: string; newHash: string; now: string; expiresAt: string; graceMs: number }
  | { type: 'RevokeSession'; now: string; reason?: 'logout' | 'member_removed' };

export const refreshFailed = () => new DomainError('REFRESH_FAILED', 'Refresh token is invalid or expired');

/**
 * A rotated token presented again within `graceMs` of its rotation: how many rotations it is behind the
 * current head (1 = it was rotated into the current token). null when it is not such a token.
 */
export function rotationsBehindHead(state: LoginSessionState, presentedHash: string, now: string, graceMs: number): number | null {
  if (state.status !== 'active') return null;
  const i = state.rotated.findIndex((r) => r.hash === presentedHash);
  if (i < 0) return null;
  return Date.parse(now) - Date.parse(state.rotated[i]!.at) <= graceMs ? state.rotated.length - i : null;
}

export const loginSessionDecider: Decider<LoginSessionCommand, LoginSessionEvent, LoginSessionState> = {
  initialState: { status: 'none' },
  evolve(state, event) {
    switch (event.type) {
      case 'SessionStarted':
        return {
          status: 'active',
          sessionId: event.data.sessionId,
          userId: event.data.userId,
          companyId: event.data.companyId,
          currentHash: event.data.tokenHash,
          rotated: [],
          expiresAt: event.data.expiresAt,
        };
      case 'RefreshTokenRotated':
        if (state.status === 'none') return state;
        return {
          ...state,
          currentHash: event.data.toHash,
          rotated: [...state.rotated, { hash: event.data.fromHash, at: event.data.at }],
          expiresAt: event.data.expiresAt,
        };
      case 'SessionRevoked':
        return state.status === 'none' ? state : { ...state, status: 'revoked' };
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'StartSession':
        if (state.status !== 'none') throw new DomainError('CONFLICT', 'Session already exists');
        return [
          {
            type: 'SessionStarted',
            data: {
              sessionId: command.sessionId,
              userId: command.userId,
              companyId: command.companyId,
              tokenHash: command.tokenHash,
              startedAt: command.now,
              expiresAt: command.expiresAt,
            },
          },
        ];
      case 'RefreshSession':
        if (state.status !== 'active') throw refreshFailed();
        if (state.rotated.some((r) => r.hash === command.presentedHash)) {
          // A concurrent refresh that lost the race: nothing changes, the caller hands out the current head.
          if (rotationsBehindHead(state, command.presentedHash, command.now, command.graceMs) !== null) {
            if (Date.parse(state.expiresAt) <= Date.parse(command.now)) throw refreshFailed();
            return [];
          }
          // Reuse of a rotated token: revoke the family; the caller reports failure after appending.
          return [{ type: 'SessionRevoked', data: { reason: 'reuse_detected', at: command.now } }];
        }
        if (state.currentHash !== command.presentedHash) throw refreshFailed();
        if (Date.parse(state.expiresAt) <= Date.parse(command.now)) throw refreshFailed();
        return [
          {
            type: 'RefreshTokenRotated',
            data: { fromHash: state.currentHash, toHash: command.newHash, at: command.now, expiresAt: command.expiresAt },
          },
        ];
      case 'RevokeSession':
        return state.status === 'active' ? [{ type: 'SessionRevoked', data: { reason: command.reason ?? 'logout', at: command.now } }] : [];
    }
  },
};

/** The stream keeps its stored name (`session-`): renaming it would orphan every login already stored. */
export const loginSessionStream = (sessionId: string) => `session-${sessionId}`;
