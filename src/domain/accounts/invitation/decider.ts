import type { z } from 'zod';
import type { Decider } from '../../decider.js';
import { DomainError } from '../../errors.js';
import type { Role } from '../team/events.js';
import type { InvitationEvent, invitationEvents } from './events.js';
import { evolveInvitation, initialInvitationState, type InvitationState } from './state.js';

export type InvitationCommand =
  | ({ type: 'CreateInvitation' } & z.infer<typeof invitationEvents.InvitationCreated>)
  | {
      type: 'AcceptInvitation';
      tokenHash: string;
      userId: string;
      now: string;
      /** The inviter's current role (the team stream's), null when they are no longer a member. */
      inviterRole: Role | null;
    }
  | { type: 'RevokeInvitation'; companyId: string; by: string; now: string };

export const invitationNotFound = () => new DomainError('NOT_FOUND', 'Invitation not found');

/**
 * Who may invite whom, when the invitation is sent and again when it is accepted: agents invite nobody, admins
 * anyone but an owner. Null when `inviterRole` may invite `role`; `inviterRole` null: no longer a member.
 */
export function invitingRefused(inviterRole: Role | null, role: Role): string | null {
  if (inviterRole === null) return 'Only members of the team can invite';
  if (inviterRole === 'agent') return 'Only owners and admins can invite teammates';
  if (inviterRole === 'admin' && role === 'owner') return 'Only an owner can invite an owner';
  return null;
}

/** What a token's use is checked with. */
export interface InvitationUse {
  tokenHash: string;
  now: string;
  hashesEqual: (a: string, b: string) => boolean;
  /** The inviter's current role; null when they are no longer a member. */
  inviterRole: Role | null;
}

/**
 * Why a token cannot be used, or null when it can. A token that matches no invitation is "not found"; one
 * that did match an invitation that is used, revoked or past its time is "gone" (410). An invitation dies
 * with its inviter's power: once the inviter could no longer send it (removed, or demoted below what it
 * grants), it reads as revoked.
 */
export function invitationUnusable(state: InvitationState, use: InvitationUse): DomainError | null {
  if (state.status === 'none' || !use.hashesEqual(state.tokenHash, use.tokenHash)) return invitationNotFound();
  if (state.status === 'accepted') return new DomainError('INVITATION_USED', 'This invitation has already been accepted');
  if (state.status === 'revoked') return new DomainError('INVITATION_REVOKED', 'This invitation was revoked');
  if (Date.parse(use.now) >= Date.parse(state.expiresAt)) return new DomainError('INVITATION_EXPIRED', 'This invitation has expired');
  if (invitingRefused(use.inviterRole, state.role)) {
    return new DomainError('INVITATION_REVOKED', 'This invitation was revoked: the teammate who sent it can no longer invite with this role');
  }
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
        const unusable = invitationUnusable(state, { tokenHash: command.tokenHash, now: command.now, hashesEqual: sameHash, inviterRole: command.inviterRole });
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
