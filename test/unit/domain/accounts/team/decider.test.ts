import { describe, expect, it } from 'vitest';
import { roleOf } from '../../../../../src/domain/accounts/team/state.js';
import { teamDecider } from '../../../../../src/domain/accounts/team/decider.js';
import { type TeamEvent } from '../../../../../src/domain/accounts/team/events.js';
import { specFor } from '../../../../support/gwt.js';

const T0 = '2026-01-01T00:00:00.000Z';
const OWNER = '11111111-1111-4111-8111-111111111111';
const ADMIN = '22222222-2222-4222-8222-222222222222';
const AGENT = '33333333-3333-4333-8333-333333333333';
const INV = '55555555-5555-4555-8555-555555555555';
const joined = (userId: string, role: 'owner' | 'admin' | 'agent'): TeamEvent => ({
  type: 'TeamMemberJoined',
  data: { userId, email: `${role}@example.com`, name: null, role, at: T0, invitationId: null },
});

describe('team', () => {
  const team = specFor(teamDecider);
  const full = [joined(OWNER, 'owner'), joined(ADMIN, 'admin'), joined(AGENT, 'agent')];
  const as = (userId: string, role: 'owner' | 'admin' | 'agent') => ({ userId, role });

  it('a company from before teams has one member, its owner', () => {
    const { state } = team.given([]);
    expect(roleOf(state, OWNER, OWNER)).toBe('owner');
    expect(roleOf(state, AGENT, OWNER)).toBeNull();
  });
  it('the first join into such a team records its owner first', () => {
    team
      .given([])
      .when({ type: 'JoinTeam', userId: AGENT, email: 'agent@example.com', name: 'Al', role: 'agent', now: T0, invitationId: INV, legacyOwner: { userId: OWNER, email: 'owner@example.com' } })
      .then([
        { type: 'TeamMemberJoined', data: { userId: OWNER, email: 'owner@example.com', name: null, role: 'owner', at: T0, invitationId: null } },
        { type: 'TeamMemberJoined', data: { userId: AGENT, email: 'agent@example.com', name: 'Al', role: 'agent', at: T0, invitationId: INV } },
      ]);
  });
  it('agents manage nobody', () => {
    team.given(full).when({ type: 'RemoveMember', actor: as(AGENT, 'agent'), userId: ADMIN, now: T0, legacyOwnerUserId: '' }).thenThrows('FORBIDDEN');
    team.given(full).when({ type: 'ChangeRole', actor: as(AGENT, 'agent'), userId: AGENT, role: 'admin', now: T0, legacyOwnerUserId: '' }).thenThrows('FORBIDDEN');
  });
  it('admins cannot remove or demote an owner, nor make one', () => {
    team.given(full).when({ type: 'RemoveMember', actor: as(ADMIN, 'admin'), userId: OWNER, now: T0, legacyOwnerUserId: '' }).thenThrows('FORBIDDEN');
    team.given(full).when({ type: 'ChangeRole', actor: as(ADMIN, 'admin'), userId: OWNER, role: 'agent', now: T0, legacyOwnerUserId: '' }).thenThrows('FORBIDDEN');
    team.given(full).when({ type: 'ChangeRole', actor: as(ADMIN, 'admin'), userId: AGENT, role: 'owner', now: T0, legacyOwnerUserId: '' }).thenThrows('FORBIDDEN');
    team
      .given(full)
      .when({ type: 'RemoveMember', actor: as(ADMIN, 'admin'), userId: AGENT, now: T0, legacyOwnerUserId: '' })
      .then([{ type: 'TeamMemberRemoved', data: { userId: AGENT, by: ADMIN, at: T0 } }]);
  });
  it('the last owner stays: not removed, not demoted, also not in a team from before teams', () => {
    team.given(full).when({ type: 'RemoveMember', actor: as(OWNER, 'owner'), userId: OWNER, now: T0, legacyOwnerUserId: '' }).thenThrows('LAST_OWNER');
    team.given(full).when({ type: 'ChangeRole', actor: as(OWNER, 'owner'), userId: OWNER, role: 'admin', now: T0, legacyOwnerUserId: '' }).thenThrows('LAST_OWNER');
    team.given([]).when({ type: 'RemoveMember', actor: as(OWNER, 'owner'), userId: OWNER, now: T0, legacyOwnerUserId: OWNER }).thenThrows('LAST_OWNER');
  });
  it('a removed member has no role and cannot be removed again', () => {
    const removed: TeamEvent = { type: 'TeamMemberRemoved', data: { userId: AGENT, by: OWNER, at: T0 } };
    const { state } = team.given([...full, removed]);
    expect(roleOf(state, AGENT, null)).toBeNull();
    team.given([...full, removed]).when({ type: 'RemoveMember', actor: as(OWNER, 'owner'), userId: AGENT, now: T0, legacyOwnerUserId: '' }).thenThrows('NOT_FOUND');
  });
  describe('a member names themself', () => {
    it('given a member, when they set their name, then TeamMemberRenamed', () => {
      team
        .given(full)
        .when({ type: 'RenameSelf', userId: OWNER, name: 'Olga', now: T0 })
        .then([{ type: 'TeamMemberRenamed', data: { userId: OWNER, name: 'Olga', at: T0 } }]);
    });
    it('given a removed member, when they set their name, then NOT_FOUND', () => {
      const removed: TeamEvent = { type: 'TeamMemberRemoved', data: { userId: AGENT, by: OWNER, at: T0 } };
      team.given([...full, removed]).when({ type: 'RenameSelf', userId: AGENT, name: 'Al', now: T0 }).thenThrows('NOT_FOUND');
    });
    it('given a company from before teams, when its owner sets their name, then they join the team with it; anyone else is NOT_FOUND', () => {
      const legacyOwner = { userId: OWNER, email: 'owner@example.com' };
      team
        .given([])
        .when({ type: 'RenameSelf', userId: OWNER, name: 'Olga', now: T0, legacyOwner })
        .then([{ type: 'TeamMemberJoined', data: { userId: OWNER, email: 'owner@example.com', name: 'Olga', role: 'owner', at: T0, invitationId: null } }]);
      team.given([]).when({ type: 'RenameSelf', userId: AGENT, name: 'Al', now: T0, legacyOwner }).thenThrows('NOT_FOUND');
    });
    it('the name changes no role', () => {
      const { state } = team.given([...full, { type: 'TeamMemberRenamed', data: { userId: AGENT, name: 'Al', at: T0 } }]);
      expect(roleOf(state, AGENT, null)).toBe('agent');
    });
  });
});
