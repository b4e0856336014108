import { z } from 'zod';
import type { InvitationView } from '../../commands/accounts/teammates.js';
import { availability } from '../../domain/accounts/availability/events.js';
import { roleSchema } from '../../domain/accounts/team/events.js';
import type { DeskView } from '../../projections/assignmentDesk/queries.js';
import type { TeammateDoc } from '../../projections/teammates/teammatesProjection.js';
import { newPassword, sessionSchema } from './auth.schemas.js';
import { bearerSecurity as security, errorBody, errorResponses, listQuery } from './schemas.js';

const teammate = z.object({
  id: z.uuid(),
  email: z.string(),
  name: z.string().nullable(),
  role: roleSchema,
  joinedAt: z.string(),
  availability: availability.optional().describe('in the list: whether they take conversations now (they set it themselves)'),
  openAssigned: z.number().int().min(0).optional().describe('in the list: open conversations they own'),
});
const invitation = z.object({
  id: z.uuid(),
  email: z.string(),
  role: roleSchema,
  invitedBy: z.uuid(),
  createdAt: z.string(),
  expiresAt: z.string(),
  expired: z.boolean(),
});
export const teammateView = (d: TeammateDoc, desk?: DeskView): z.infer<typeof teammate> => ({ id: d.id, email: d.email, name: d.name, role: d.role, joinedAt: d.joinedAt, ...(desk ?? {}) });
export const invitationView = (d: InvitationView, now: number): z.infer<typeof invitation> => ({
  id: d.id,
  email: d.email,
  role: d.role,
  invitedBy: d.invitedBy,
  createdAt: d.createdAt,
  expiresAt: d.expiresAt,
  expired: Date.parse(d.expiresAt) <= now,
});

const tags = ['team'];
const userIdParam = z.object({ userId: z.string().max(64) });
const teamErrors = { ...errorResponses, 409: errorBody };
const token = z.string().min(1).max(256);
const goneErrors = { ...errorResponses, 409: errorBody, 410: errorBody };

export const listTeamSchema = { tags, security, querystring: listQuery, response: { 200: z.object({ teammates: z.array(teammate), nextCursor: z.string().nullable() }), ...errorResponses } };

export const changeRoleSchema = { tags, security, params: userIdParam, body: z.strictObject({ role: roleSchema }), response: { 200: z.object({ teammate }), ...teamErrors } };

export const nameSelfSchema = {
  tags,
  security,
  summary: 'Set your own name',
  description:
    'The name the team sees the caller by (sign-up asks for none: its body is fixed). Every role, for themself only; a login session, not an API token. 200 with the caller as a teammate.',
  body: z.strictObject({ name: z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters') }),
  response: { 200: z.object({ teammate }), ...teamErrors },
};

export const removeTeammateSchema = { tags, security, params: userIdParam, response: { 204: z.null(), ...teamErrors } };

export const listInvitationsSchema = {
  tags,
  security,
  description: 'Invitations not yet accepted or revoked, newest first; `expired` ones can only be revoked.',
  querystring: listQuery,
  response: { 200: z.object({ invitations: z.array(invitation), nextCursor: z.string().nullable() }), ...errorResponses },
};

export const inviteSchema = {
  tags,
  security,
  description:
    'Invites an email with a role. `invitationUrl` carries a single-use token and is returned only here, once; with SMTP configured it is also emailed (`emailed`).',
  body: z.strictObject({ email: z.string().trim().max(254).pipe(z.email({ message: 'must be an email address' })), role: roleSchema }),
  response: { 201: z.object({ invitation, invitationUrl: z.string(), emailed: z.boolean() }), ...teamErrors },
};

export const revokeInvitationSchema = { tags, security, params: z.object({ id: z.string().max(64) }), response: { 204: z.null(), ...errorResponses } };

export const previewInvitationSchema = {
  tags: ['auth'],
  description: 'What an invitation link is for, before accepting it.',
  body: z.strictObject({ token }),
  response: { 200: z.object({ invitation: z.object({ email: z.string(), role: roleSchema, companyName: z.string(), expiresAt: z.string() }) }), ...goneErrors },
};

export const acceptInvitationSchema = {
  tags: ['auth'],
  description: 'Creates the invited user in the inviting company with the invited role and signs them in (the login response).',
  body: z.strictObject({ token, name: z.string().trim().min(1).max(200), password: newPassword }),
  response: { 200: z.object({ session: sessionSchema, user: z.object({ id: z.uuid(), email: z.string(), companyId: z.number().int() }) }), ...goneErrors },
};
