import type { Decider } from '../../decider.js';
import { DomainError } from '../../errors.js';
import type { Role, TeamEvent } from './events.js';
import { evolveTeam, initialTeamState, type TeamMember, type TeamState } from './state.js';

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
  | { type: 'RemoveMember'; actor: Actor; userId: string; now: string; legacyOwnerUserId: string }
  | {
      /** A member names themself; nobody names someone else. */
      type: 'RenameSelf';
      userId: string;
      name: string;
      now: string;
      /** The company's owner from before teams: their first team event is their join, with the name. */
      legacyOwner?: { userId: string; email: string } | undefined;
    };

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
  initialState: initialTeamState,
  evolve: evolveTeam,
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
      case 'RenameSelf': {
        if (state.status === 'none') {
          if (command.legacyOwner?.userId !== command.userId) throw notFound();
          const { userId, email } = command.legacyOwner;
          return [{ type: 'TeamMemberJoined', data: { userId, email, name: command.name, role: 'owner', at: command.now, invitationId: null } }];
        }
        if (state.members[command.userId]?.status !== 'active') throw notFound();
        return [{ type: 'TeamMemberRenamed', data: { userId: command.userId, name: command.name, at: command.now } }];
      }
    }
  },
};

export const teamStream = (companyId: string) => `team-${companyId}`;
