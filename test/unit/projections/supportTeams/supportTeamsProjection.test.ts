import { describe, it } from 'vitest';
import { supportTeamsProjection } from '../../../../src/projections/supportTeams/supportTeamsProjection.js';
import { projectionSpec, recorded } from '../../../support/projectionSpec.js';

const company = '0b7e2a52-54a3-4a4f-9a53-3c1c3e0f0001';
const at = (s: number) => `2025-01-01T10:00:0${s}.000Z`;
const team = (n: number) => `aaaaaaaa-0000-4000-8000-00000000000${n}`;
const user = (n: number) => `bbbbbbbb-0000-4000-8000-00000000000${n}`;

describe('supportTeams projection', () => {
  const spec = projectionSpec(supportTeamsProjection);
  const s = `supportteams-${company}`;

  it('lists teams with their edits and keeps the routes; a deleted team leaves with its routes', async () => {
    await spec
      .given([
        recorded(s, 'SupportTeamCreated', { teamId: team(1), companyId: company, name: 'Billing', memberIds: [user(1)], capacity: null, by: 'user:u1', at: at(0) }),
        recorded(s, 'SupportTeamCreated', { teamId: team(2), companyId: company, name: 'Returns', memberIds: [], capacity: 2, by: 'user:u1', at: at(1) }),
        recorded(s, 'SupportTeamUpdated', { teamId: team(1), changes: { memberIds: [user(1), user(2)], capacity: 4 }, by: 'user:u1', at: at(2) }),
        recorded(s, 'TeamRouteSet', { integrationId: 7, teamId: team(1), by: 'user:u1', at: at(3) }),
        recorded(s, 'TeamRouteSet', { integrationId: 8, teamId: team(2), by: 'user:u1', at: at(4) }),
        recorded(s, 'TeamRouteSet', { integrationId: 9, teamId: team(2), by: 'user:u1', at: at(5) }),
        recorded(s, 'TeamRouteSet', { integrationId: 9, teamId: null, by: 'user:u1', at: at(6) }),
        recorded(s, 'SupportTeamDeleted', { teamId: team(2), by: 'user:u1', at: at(7) }),
      ])
      .then({
        support_teams: [{ id: team(1), companyId: company, name: 'Billing', memberIds: [user(1), user(2)], capacity: 4, createdAt: at(0), updatedAt: at(2) }],
        team_routes: [{ id: company, routes: { '7': team(1) } }],
      });
  });
});
