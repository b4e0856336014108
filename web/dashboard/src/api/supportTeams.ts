// Support teams (groups of teammates) and routing: which team an integration's handoffs go to.
import { request } from './client.js';
import type { Body, Reply, conversations, supportTeams } from './serverTypes.js';

export type TeamsAndRoutes = Reply<typeof supportTeams.listSupportTeamsSchema>;
export type SupportTeam = TeamsAndRoutes['teams'][number];
export type SupportTeamInput = Body<typeof supportTeams.createSupportTeamSchema>;
export type SupportTeamChanges = Body<typeof supportTeams.updateSupportTeamSchema>;

export const listSupportTeams = (o?: { signal?: AbortSignal }) => request<TeamsAndRoutes>('GET', '/api/teams', undefined, o);

export const createSupportTeam = async (input: SupportTeamInput) =>
  (await request<Reply<typeof supportTeams.createSupportTeamSchema, 201>>('POST', '/api/teams', input)).team;

export const updateSupportTeam = async (id: string, changes: SupportTeamChanges) =>
  (await request<Reply<typeof supportTeams.updateSupportTeamSchema>>('PATCH', `/api/teams/${encodeURIComponent(id)}`, changes)).team;

export const deleteSupportTeam = (id: string) => request<void>('DELETE', `/api/teams/${encodeURIComponent(id)}`);

export const setTeamRoute = async (integrationId: number, teamId: string | null) =>
  (await request<Reply<typeof supportTeams.setTeamRouteSchema>>('PUT', `/api/teams/routes/${integrationId}`, { teamId } satisfies Body<typeof supportTeams.setTeamRouteSchema>)).routes;

export const setConversationTeam = async (conversationId: string, teamId: string | null) =>
  (await request<Reply<typeof conversations.setConversationTeamSchema>>('PUT', `/api/conversations/${encodeURIComponent(conversationId)}/team`, { teamId } satisfies Body<typeof conversations.setConversationTeamSchema>)).conversation;
