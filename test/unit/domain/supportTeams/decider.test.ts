import { describe, it } from 'vitest';
import { supportTeamsDecider } from '../../../../src/domain/supportTeams/decider.js';
import { type SupportTeamCommand } from '../../../../src/domain/supportTeams/decider.js';
import { type SupportTeamEvent } from '../../../../src/domain/supportTeams/events.js';
import { specFor } from '../../../support/gwt.js';

const spec = specFor(supportTeamsDecider);
const company = '0b7e2a52-54a3-4a4f-9a53-3c1c3e0f0001';
const other = '0b7e2a52-54a3-4a4f-9a53-3c1c3e0f0002';
const id = (n: number) => `aaaaaaaa-0000-4000-8000-${String(n).padStart(12, '0')}`;
const user = (n: number) => `bbbbbbbb-0000-4000-8000-${String(n).padStart(12, '0')}`;
const at = '2025-01-01T10:00:00.000Z';
const by = 'user:u1';
const create = (n: number, name: string, memberIds: string[] = [user(1)]): SupportTeamCommand => ({
  type: 'CreateSupportTeam', companyId: company, teamId: id(n), name, memberIds, capacity: null, teammateIds: [user(1), user(2)], by, now: at,
});
const created = (n: number, name: string, memberIds: string[] = [user(1)]): SupportTeamEvent => ({
  type: 'SupportTeamCreated',
  data: { teamId: id(n), companyId: company, name, memberIds, capacity: null, by, at },
});
const route = (integrationId: number, teamId: string | null): SupportTeamCommand => ({ type: 'SetTeamRoute', companyId: company, integrationId, teamId, by, now: at });
const routed = (integrationId: number, teamId: string | null): SupportTeamEvent => ({ type: 'TeamRouteSet', data: { integrationId, teamId, by, at } });

describe('support teams decider', () => {
  it('creates a team of teammates (a member named twice is kept once)', () => {
    spec.given([]).when(create(1, 'Billing', [user(1), user(2), user(1)])).then([created(1, 'Billing', [user(1), user(2)])]);
  });

  it('refuses a member who is not a teammate of the company, a blank name, and a name another team has (any case)', () => {
    spec.given([]).when(create(1, 'Billing', [user(9)])).thenThrows('VALIDATION_ERROR');
    spec.given([]).when(create(1, '   ')).thenThrows('VALIDATION_ERROR');
    spec.given([created(1, 'Billing')]).when(create(2, 'billing')).thenThrows('CONFLICT');
  });

  it('updates only what changed; an update that changes nothing records nothing', () => {
    const update = (changes: object): SupportTeamCommand => ({ type: 'UpdateSupportTeam', companyId: company, teamId: id(1), changes, teammateIds: [user(1), user(2)], by, now: at });
    spec
      .given([created(1, 'Billing')])
      .when(update({ name: 'Billing', memberIds: [user(1), user(2)], capacity: 5 }))
      .then([{ type: 'SupportTeamUpdated', data: { teamId: id(1), changes: { memberIds: [user(1), user(2)], capacity: 5 }, by, at } }]);
    spec.given([created(1, 'Billing')]).when(update({ name: 'Billing', memberIds: [user(1)] })).then([]);
    spec.given([created(1, 'Billing'), created(2, 'Returns')]).when(update({ name: 'Returns' })).thenThrows('CONFLICT');
    spec.given([]).when(update({ name: 'X' })).thenThrows('NOT_FOUND');
  });

  it('a member who has left the company since is dropped quietly on the next update; a new stranger is refused', () => {
    const update = (memberIds: string[]): SupportTeamCommand => ({ type: 'UpdateSupportTeam', companyId: company, teamId: id(1), changes: { memberIds }, teammateIds: [user(2)], by, now: at });
    spec
      .given([created(1, 'Billing', [user(1)])])
      .when(update([user(1), user(2)]))
      .then([{ type: 'SupportTeamUpdated', data: { teamId: id(1), changes: { memberIds: [user(2)] }, by, at } }]);
    spec.given([created(1, 'Billing', [user(1)])]).when(update([user(1), user(3)])).thenThrows('VALIDATION_ERROR');
  });

  it('routes an integration to an existing team; the same route again records nothing; an unknown team is NOT_FOUND', () => {
    spec.given([created(1, 'Billing')]).when(route(7, id(1))).then([routed(7, id(1))]);
    spec.given([created(1, 'Billing'), routed(7, id(1))]).when(route(7, id(1))).then([]);
    spec.given([created(1, 'Billing'), routed(7, id(1))]).when(route(7, null)).then([routed(7, null)]);
    spec.given([created(1, 'Billing')]).when(route(8, null)).then([]);
    spec.given([created(1, 'Billing')]).when(route(7, id(2))).thenThrows('NOT_FOUND');
  });

  it('deleting a team drops its routes: the integration goes to the whole company again', () => {
    const deleted: SupportTeamEvent = { type: 'SupportTeamDeleted', data: { teamId: id(1), by, at } };
    spec.given([created(1, 'Billing')]).when({ type: 'DeleteSupportTeam', companyId: company, teamId: id(1), by, now: at }).then([deleted]);
    spec.given([created(1, 'Billing'), routed(7, id(1)), deleted]).when(route(7, null)).then([]);
    spec.given([created(1, 'Billing'), deleted]).when({ type: 'DeleteSupportTeam', companyId: company, teamId: id(1), by, now: at }).thenThrows('NOT_FOUND');
  });

  it("another company's command on this stream reads as a missing team", () => {
    spec.given([created(1, 'Billing')]).when({ type: 'DeleteSupportTeam', companyId: other, teamId: id(1), by, now: at }).thenThrows('NOT_FOUND');
  });

  it('at most 50 teams', () => {
    const fifty = Array.from({ length: 50 }, (_, i) => created(i + 1, `Team ${i + 1}`));
    spec.given(fifty).when(create(51, 'One more')).thenThrows('QUOTA_EXCEEDED');
  });
});
