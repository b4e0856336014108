import type { Role, TeamEvent } from './events.js';

export interface TeamMember {
  role: Role;
  status: 'active' | 'removed';
}

/** `none`: no team stream yet (a company from before teams); see `roleOf`. */
export type TeamState = { status: 'none' } | { status: 'active'; members: Record<string, TeamMember> };

/**
 * The member's current role, or null when they are not (or no longer) a member. A team without a stream
 * has exactly one member: the company's owner.
 */
export function roleOf(state: TeamState, userId: string, legacyOwnerUserId: string | null): Role | null {
  if (state.status === 'none') return userId === legacyOwnerUserId ? 'owner' : null;
  const member = state.members[userId];
  return member?.status === 'active' ? member.role : null;
}

const RANK: Record<Role, number> = { agent: 0, admin: 1, owner: 2 };

/** `role`, or `cap` when `role` is above it: what someone acting for a member may do at most. */
export const capRole = (role: Role, cap: Role): Role => (RANK[role] > RANK[cap] ? cap : role);

export const initialTeamState: TeamState = { status: 'none' };

export function evolveTeam(state: TeamState, event: TeamEvent): TeamState {
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
    case 'TeamMemberRenamed':
      // Names decide nothing; the read model shows them.
      return state;
  }
}
