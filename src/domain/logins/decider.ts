import type { Decider } from '../decider.js';
import { DomainError } from '../errors.js';
import type { LoginSessionEvent } from './events.js';
import { evolveLoginSession, initialLoginSessionState, rotationsBehindHead, type LoginSessionState } from './state.js';

export type LoginSessionCommand =
  | { type: 'StartSession'; sessionId: string; userId: string; companyId: string; tokenHash: string; now: string; expiresAt: string }
  | { type: 'RefreshSession'; presentedHash: string; newHash: string; now: string; expiresAt: string; graceMs: number }
  | { type: 'RevokeSession'; now: string; reason?: 'logout' | 'member_removed' };

export const refreshFailed = () => new DomainError('REFRESH_FAILED', 'Refresh token is invalid or expired');

export const loginSessionDecider: Decider<LoginSessionCommand, LoginSessionEvent, LoginSessionState> = {
  initialState: initialLoginSessionState,
  evolve: evolveLoginSession,
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
