import type { SupportTeamEvent, SupportTeamFields } from './events.js';

export interface SupportTeam extends SupportTeamFields {
  id: string;
  createdAt: string;
  updatedAt: string;
}

export interface SupportTeamsState {
  companyId: string | null;
  teams: Map<string, SupportTeam>;
  /** Integration id → the team its handoffs go to. */
  routes: Map<number, string>;
}

export const initialSupportTeamsState: SupportTeamsState = { companyId: null, teams: new Map(), routes: new Map() };

export function evolveSupportTeams(state: SupportTeamsState, event: SupportTeamEvent): SupportTeamsState {
  switch (event.type) {
    case 'SupportTeamCreated': {
      const { teamId, companyId, by: _by, at: when, ...fields } = event.data;
      const teams = new Map(state.teams).set(teamId, { id: teamId, ...fields, createdAt: when, updatedAt: when });
      return { ...state, companyId, teams };
    }
    case 'SupportTeamUpdated': {
      const known = state.teams.get(event.data.teamId);
      if (!known) return state;
      const teams = new Map(state.teams).set(known.id, { ...known, ...event.data.changes, updatedAt: event.data.at });
      return { ...state, teams };
    }
    case 'SupportTeamDeleted': {
      const teams = new Map(state.teams);
      teams.delete(event.data.teamId);
      const routes = new Map([...state.routes].filter(([, teamId]) => teamId !== event.data.teamId));
      return { ...state, teams, routes };
    }
    case 'TeamRouteSet': {
      const routes = new Map(state.routes);
      if (event.data.teamId === null) routes.delete(event.data.integrationId);
      else routes.set(event.data.integrationId, event.data.teamId);
      return { ...state, routes };
    }
  }
}
