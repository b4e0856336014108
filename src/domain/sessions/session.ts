import { z } from 'zod';
import type { Decider } from '../decider.js';
import { DomainError } from '../errors.js';

/**
 * A login session is a refresh-token family (RFC 9700 §4.14): each refresh rotates the token; presenting
 * a token that was already rotated away means it leaked, so the whole family is revoked.
 * Only SHA-256 hashes of refresh tokens are stored.
 */
export const sessionEvents = {
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
  SessionRevoked: z.object({ reason: z.enum(['logout', 'reuse_detected']), at: z.iso.datetime() }),
};
type Events = typeof sessionEvents;
export type SessionEvent = { [K in keyof Events]: { type: K; data: z.infer<Events[K]> } }[keyof Events];

export type SessionState =
  | { status: 'none' }
  | {
      status: 'active' | 'revoked';
      sessionId: string;
      userId: string;
      companyId: string;
      currentHash: string;
      usedHashes: string[];
      expiresAt: string;
    };

export type SessionCommand =
  | { type: 'StartSession'; sessionId: string; userId: string; companyId: string; tokenHash: string; now: string; expiresAt: string }
  | { type: 'RefreshSession'; presentedHash: string; newHash: string; now: string; expiresAt: string }
  | { type: 'RevokeSession'; now: string };

export const refreshFailed = () => new DomainError('REFRESH_FAILED', 'Refresh token is invalid or expired');

export const sessionDecider: Decider<SessionCommand, SessionEvent, SessionState> = {
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
          usedHashes: [],
          expiresAt: event.data.expiresAt,
        };
      case 'RefreshTokenRotated':
        if (state.status === 'none') return state;
        return { ...state, currentHash: event.data.toHash, usedHashes: [...state.usedHashes, event.data.fromHash], expiresAt: event.data.expiresAt };
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
        if (state.usedHashes.includes(command.presentedHash)) {
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
        return state.status === 'active' ? [{ type: 'SessionRevoked', data: { reason: 'logout', at: command.now } }] : [];
    }
  },
};

export const sessionStream = (sessionId: string) => `session-${sessionId}`;
