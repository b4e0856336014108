import type { z } from 'zod';
import type { Decider } from '../../decider.js';
import { DomainError } from '../../errors.js';
import type { InvitationEvent, invitationEvents } from './events.js';
import { evolveInvitation, initialInvitationState, type InvitationState } from './state.js';

export type InvitationCommand =
  | ({ type: 'CreateInvitation' } & z.infer<typeof invitationEvents.InvitationCreated>)
  | { type: 'AcceptInvitation'; tokenHash: string; userId: string; now: string }
  | { type: 'RevokeInvitation'; companyId: string; by: string; now: string };

export const invitationNotFound = () => new DomainError('NOT_FOUND', 'Invitation not found');

/**
 * Why a token cannot be used, or null when it can. A token that matches no invitation is "not found"; one
 * that did match an invitation that is used, revoked or past its time is "gone" (410).
 */
export function invitationUnusable(state: InvitationState, tokenHash: string, now: string, hashesEqual: (a: string, b: string) => boolean): DomainError | null {
  if (state.status === 'none' || !hashesEqual(state.tokenHash, tokenHash)) return invitationNotFound();
  if (state.status === 'accepted') return new DomainError('INVITATION_USED', 'This invitation has already been accepted');
  if (state.status === 'revoked') return new DomainError('INVITATION_REVOKED', 'This invitation was revoked');
  if (Date.parse(now) >= Date.parse(state.expiresAt)) return new DomainError('INVITATION_EXPIRED', 'This invitation has expired');
  return null;
}

/** Decisions compare hashes of 256-bit secrets; an equal-length compare of hashes leaks nothing useful. */
const sameHash = (a: string, b: string) => a === b;

export const invitationDecider: Decider<InvitationCommand, InvitationEvent, InvitationState> = {
  initialState: initialInvitationState,
  evolve: evolveInvitation,
  decide(command, state) {
    switch (command.type) {
      case 'CreateInvitation': {
        if (state.status !== 'none') throw new DomainError('CONFLICT', 'Invitation already exists');
        const { type: _type, ...data } = command;
        return [{ type: 'InvitationCreated', data }];
      }
      case 'AcceptInvitation': {
        const unusable = invitationUnusable(state, command.tokenHash, command.now, sameHash);
        if (unusable) throw unusable;
        return [{ type: 'InvitationAccepted', data: { userId: command.userId, at: command.now } }];
      }
      case 'RevokeInvitation':
        if (state.status === 'none' || state.companyId !== command.companyId) throw invitationNotFound();
        if (state.status !== 'pending') return [];
        return [{ type: 'InvitationRevoked', data: { by: command.by, at: command.now } }];
    }
  },
};

export const invitationStream = (invitationId: string) => `invitation-${invitationId}`;
