import { z } from 'zod';
import type { Decider } from '../decider.js';
import { DomainError } from '../errors.js';

export const roles = ['owner', 'admin', 'agent'] as const;
export const roleSchema = z.enum(roles);
export type Role = z.infer<typeof roleSchema>;

/**
 * A company's team: who belongs to it and with which role. One stream per company (`team-<companyId>`), so
 * the rules that span members ("the last owner cannot leave", "an admin cannot demote an owner") are decided
 * on one consistent state, and a role change or removal applies to the member's very next request (the
 * authenticator reads this stream).
 *
 * Companies registered before teams existed have no team stream: their one user, the company's
 * `ownerUserId`, is the owner (`roleOf`). The first join into such a team records that owner first.
 */
export const teamEvents = {
  TeamMemberJoined: z.object({
    userId: z.uuid(),
    email: z.string().max(254),
    name: z.string().max(200).nullable(),
    role: roleSchema,
    at: z.iso.datetime(),
    /** null for the company's registering owner (and the legacy owner recorded on a first join). */
    invitationId: z.uuid().nullable(),
  }),
  TeamMemberRoleChanged: z.object({ userId: z.uuid(), role: roleSchema, by: z.uuid(), at: z.iso.datetime() }),
  TeamMemberRemoved: z.object({ userId: z.uuid(), by: z.uuid(), at: z.iso.datetime() }),
};
type Events = typeof teamEvents;
export type TeamEvent = { [K in keyof Events]: { type: K; data: z.infer<Events[K]> } }[keyof Events];

export interface TeamMember {
  role: Role;
  status: 'active' | 'removed';
}

/** `none`: no team stream yet (a company from before teams); see `roleOf`. */
export type TeamState = { status: 'none' } | { status: 'active'; members: Record<string, TeamMember> };

export interface Actor {
  userId: string;
  role: Role;
}

export type TeamCommand =
  | {
      type: 'JoinTeam';
      userId: string;
      email: string;
      name: string | null;
      role: Role;
      now: string;
      invitationId: string | null;
      /** The company's owner from before teams, recorded first when this is the team's first event. */
      legacyOwner?: { userId: string; email: string } | undefined;
    }
  | { type: 'ChangeRole'; actor: Actor; userId: string; role: Role; now: string; legacyOwnerUserId: string }
  | { type: 'RemoveMember'; actor: Actor; userId: string; now: string; legacyOwnerUserId: string };

/**
 * The member's current role, or null when they are not (or no longer) a member. A team without a stream
 * has exactly one member: the company's owner.
 */
export function roleOf(state: TeamState, userId: string, legacyOwnerUserId: string | null): Role | null {
  if (state.status === 'none') return userId === legacyOwnerUserId ? 'owner' : null;
  const member = state.members[userId];
  return member?.status === 'active' ? member.role : null;
}

const membersOf = (state: TeamState, legacyOwnerUserId: string): Record<string, TeamMember> =>
  state.status === 'none' ? { [legacyOwnerUserId]: { role: 'owner', status: 'active' } } : state.members;

const activeOwners = (members: Record<string, TeamMember>) => Object.values(members).filter((m) => m.status === 'active' && m.role === 'owner').length;

const notFound = () => new DomainError('NOT_FOUND', 'Teammate not found');
export const lastOwner = () => new DomainError('LAST_OWNER', 'The company needs an owner: make another teammate owner first');

/** Who may manage whom: agents manage nobody; admins everyone but owners, and cannot hand out ownership. */
function checkManage(actor: Actor, targetRole: Role, newRole: Role | null) {
  if (actor.role === 'agent') throw new DomainError('FORBIDDEN', 'Only owners and admins can manage the team');
  if (actor.role === 'admin' && targetRole === 'owner') throw new DomainError('FORBIDDEN', 'Only an owner can change or remove an owner');
  if (actor.role === 'admin' && newRole === 'owner') throw new DomainError('FORBIDDEN', 'Only an owner can make someone owner');
}

export const teamDecider: Decider<TeamCommand, TeamEvent, TeamState> = {
  initialState: { status: 'none' },
  evolve(state, event) {
    const members = state.status === 'active' ? state.members : {};
    switch (event.type) {
      case 'TeamMemberJoined':
        return { status: 'active', members: { ...members, [event.data.userId]: { role: event.data.role, status: 'active' } } };
      case 'TeamMemberRoleChanged': {
        const m = members[event.data.userId];
        return m ? { status: 'active', members: { ...members, [event.data.userId]: { ...m, role: event.data.role } } } : state;
      }
      case 'TeamMemberRemoved': {
        const m = members[event.data.userId];
        return m ? { status: 'active', members: { ...members, [event.data.userId]: { ...m, status: 'removed' } } } : state;
      }
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'JoinTeam': {
        if (state.status === 'active' && state.members[command.userId]) throw new DomainError('CONFLICT', 'Already a teammate');
        const events: TeamEvent[] = [];
        if (state.status === 'none' && command.legacyOwner && command.legacyOwner.userId !== command.userId) {
          events.push({
            type: 'TeamMemberJoined',
            data: { userId: command.legacyOwner.userId, email: command.legacyOwner.email, name: null, role: 'owner', at: command.now, invitationId: null },
          });
        }
        events.push({
          type: 'TeamMemberJoined',
          data: { userId: command.userId, email: command.email, name: command.name, role: command.role, at: command.now, invitationId: command.invitationId },
        });
        return events;
      }
      case 'ChangeRole': {
        const members = membersOf(state, command.legacyOwnerUserId);
        const target = members[command.userId];
        if (target?.status !== 'active') throw notFound();
        checkManage(command.actor, target.role, command.role);
        if (target.role === command.role) return [];
        if (target.role === 'owner' && activeOwners(members) === 1) throw lastOwner();
        return [{ type: 'TeamMemberRoleChanged', data: { userId: command.userId, role: command.role, by: command.actor.userId, at: command.now } }];
      }
      case 'RemoveMember': {
        const members = membersOf(state, command.legacyOwnerUserId);
        const target = members[command.userId];
        if (target?.status !== 'active') throw notFound();
        checkManage(command.actor, target.role, null);
        // (A team without a stream has only its owner, so no removal gets past these checks there.)
        if (target.role === 'owner' && activeOwners(members) === 1) throw lastOwner();
        return [{ type: 'TeamMemberRemoved', data: { userId: command.userId, by: command.actor.userId, at: command.now } }];
      }
    }
  },
};

export const teamStream = (companyId: string) => `team-${companyId}`;
