import { companyIdOfSupportTeamsStream } from '../../domain/supportTeams/decider.js';
import { supportTeamEvents } from '../../domain/supportTeams/events.js';
import type { Doc } from '../../ports/readStore.js';
import { defineProjection } from '../projection.js';

/** A company's support team, listed by name. Deleted ones are removed. */
export interface SupportTeamDoc extends Doc {
  companyId: string;
  name: string;
  memberIds: string[];
  capacity: number | null;
  createdAt: string;
  updatedAt: string;
}

/** The company's routes in one document (id: the company): integration id → team id. Bounded by its integrations. */
export interface TeamRoutesDoc extends Doc {
  routes: Record<string, string>;
}

export const SUPPORT_TEAMS = 'support_teams';
export const TEAM_ROUTES = 'team_routes';

export const supportTeamsProjection = defineProjection(supportTeamEvents, {
  name: 'supportTeams',
  collections: [
    { name: SUPPORT_TEAMS, indexes: [['companyId', 'name']] },
    { name: TEAM_ROUTES, indexes: [] },
  ],
  eventTypes: ['SupportTeamCreated', 'SupportTeamUpdated', 'SupportTeamDeleted', 'TeamRouteSet'],
  async apply(event, ctx) {
    const companyId = companyIdOfSupportTeamsStream(event.stream);
    const routesDoc = async () => (await ctx.get<TeamRoutesDoc>(TEAM_ROUTES, companyId)) ?? { id: companyId, routes: {} };
    switch (event.type) {
      case 'SupportTeamCreated': {
        const d = event.data;
        ctx.put(SUPPORT_TEAMS, { id: d.teamId, companyId: d.companyId, name: d.name, memberIds: d.memberIds, capacity: d.capacity, createdAt: d.at, updatedAt: d.at } satisfies SupportTeamDoc);
        return;
      }
      case 'SupportTeamUpdated': {
        const doc = await ctx.get<SupportTeamDoc>(SUPPORT_TEAMS, event.data.teamId);
        if (doc) ctx.put(SUPPORT_TEAMS, { ...doc, ...event.data.changes, updatedAt: event.data.at });
        return;
      }
      case 'SupportTeamDeleted': {
        ctx.delete(SUPPORT_TEAMS, event.data.teamId);
        const doc = await routesDoc();
        ctx.put(TEAM_ROUTES, { ...doc, routes: Object.fromEntries(Object.entries(doc.routes).filter(([, teamId]) => teamId !== event.data.teamId)) });
        return;
      }
      case 'TeamRouteSet': {
        const doc = await routesDoc();
        const routes = { ...doc.routes };
        if (event.data.teamId === null) delete routes[String(event.data.integrationId)];
        else routes[String(event.data.integrationId)] = event.data.teamId;
        ctx.put(TEAM_ROUTES, { ...doc, routes });
        return;
      }
    }
  },
});
