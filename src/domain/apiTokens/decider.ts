import type { z } from 'zod';
import type { Role } from '../accounts/team/events.js';
import { capRole } from '../accounts/team/state.js';
import type { Decider } from '../decider.js';
import { DomainError } from '../errors.js';
import type { ApiTokenEvent, apiTokenEvents } from './events.js';
import { evolveApiToken, initialApiTokenState, type ApiTokenState } from './state.js';

export type ApiTokenCommand =
  | ({ type: 'IssueApiToken' } & z.infer<typeof apiTokenEvents.ApiTokenIssued>)
  | { type: 'RecordApiTokenUse'; now: string }
  | { type: 'RevokeApiToken'; companyId: string; revokedBy: string; now: string };

/** Recording every request would make the stream hot; a minute's precision is enough for "last used". */
export const LAST_USED_PRECISION_MS = 60_000;

/**
 * What a request with the token may do: its creator's CURRENT role (the team stream's, read per request), never
 * above admin (the team and API tokens need a person's session anyway), and nothing once the creator is no
 * longer a member (null: the token is refused). So a token never outlives or outranks the person who made it.
 */
export const apiTokenRole = (creatorRole: Role | null): Role | null => (creatorRole === null ? null : capRole(creatorRole, 'admin'));

export const apiTokenDecider: Decider<ApiTokenCommand, ApiTokenEvent, ApiTokenState> = {
  initialState: initialApiTokenState,
  evolve: evolveApiToken,
  decide(command, state) {
    switch (command.type) {
      case 'IssueApiToken': {
        if (state.status !== 'none') throw new DomainError('CONFLICT', 'API token already exists');
        const { type: _type, ...data } = command;
        return [{ type: 'ApiTokenIssued', data }];
      }
      case 'RecordApiTokenUse':
        if (state.status !== 'active') return [];
        if (state.lastUsedAt && Date.parse(command.now) - Date.parse(state.lastUsedAt) < LAST_USED_PRECISION_MS) return [];
        return [{ type: 'ApiTokenUsed', data: { at: command.now } }];
      case 'RevokeApiToken':
        if (state.status === 'none' || state.companyId !== command.companyId) throw new DomainError('NOT_FOUND', 'API token not found');
        if (state.status === 'deleted') return []; // already revoked
        return [{ type: 'ApiTokenRevoked', data: { at: command.now, revokedBy: command.revokedBy } }];
    }
  },
};

export const apiTokenStream = (tokenId: string) => `apitoken-${tokenId}`;
