import type { LoginSessionEvent } from './events.js';

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

export const initialLoginSessionState: LoginSessionState = { status: 'none' };

export function evolveLoginSession(state: LoginSessionState, event: LoginSessionEvent): LoginSessionState {
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
}
