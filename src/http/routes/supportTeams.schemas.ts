import { z } from 'zod';
import { MAX_CAPACITY } from '../../domain/company/autoAssignment/events.js';
import { SUPPORT_TEAM_LIMITS } from '../../domain/supportTeams/events.js';
import type { SupportTeam } from '../../domain/supportTeams/state.js';
import type { SupportTeamDoc } from '../../projections/supportTeams/supportTeamsProjection.js';
import { bearerSecurity as security, errorBody, errorResponses } from './schemas.js';

export const supportTeamSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  memberIds: z.array(z.uuid()),
  capacity: z.number().int().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export const supportTeamView = (t: SupportTeam | SupportTeamDoc): z.infer<typeof supportTeamSchema> => ({
  id: t.id,
  name: t.name,
  memberIds: t.memberIds,
  capacity: t.capacity,
  createdAt: t.createdAt,
  updatedAt: t.updatedAt,
});

const writable = {
  name: z.string().trim().min(1).max(SUPPORT_TEAM_LIMITS.name),
  memberIds: z.array(z.uuid()).max(SUPPORT_TEAM_LIMITS.members),
  capacity: z.number().int().min(1).max(MAX_CAPACITY).nullable(),
};

const tags = ['teams'];
const params = z.object({ id: z.string().max(64) });
const one = z.object({ team: supportTeamSchema });
const routesSchema = z.object({ routes: z.array(z.object({ integrationId: z.number().int(), teamId: z.uuid() })) });

export const listSupportTeamsSchema = {
  tags,
  security,
  description: "The company's support teams, by name, with the routes (which team each integration's handoffs go to). Every role reads them.",
  response: { 200: z.object({ teams: z.array(supportTeamSchema) }).extend(routesSchema.shape), ...errorResponses },
};

export const createSupportTeamSchema = {
  tags,
  security,
  description: `Adds a support team (owners and admins). memberIds: teammates of the company (others: 400). capacity: open conversations a member takes at most through automatic assignment (null: the company's). At most ${SUPPORT_TEAM_LIMITS.teams} teams (409 QUOTA_EXCEEDED); a name is unique (409 CONFLICT).`,
  body: z.strictObject({ name: writable.name, memberIds: writable.memberIds.default([]), capacity: writable.capacity.default(null) }),
  response: { 201: one, 409: errorBody, ...errorResponses },
};

export const getSupportTeamSchema = { tags, security, params, response: { 200: one, ...errorResponses } };

export const updateSupportTeamSchema = {
  tags,
  security,
  params,
  description: 'Changes a team (owners and admins): any of name, memberIds (the whole list), capacity.',
  body: z.strictObject({ name: writable.name.optional(), memberIds: writable.memberIds.optional(), capacity: writable.capacity.optional() }),
  response: { 200: one, 409: errorBody, ...errorResponses },
};

export const deleteSupportTeamSchema = { tags, security, params, description: 'Deletes a team and its routes (owners and admins).', response: { 204: z.null(), ...errorResponses } };

export const setTeamRouteSchema = {
  tags,
  security,
  description: "Routes the handoffs of one of the company's integrations to a team (null: to the whole company). Owners and admins.",
  params: z.object({ integrationId: z.coerce.number().int().positive() }),
  body: z.strictObject({ teamId: z.uuid().nullable() }),
  response: { 200: routesSchema, ...errorResponses },
};
