import rateLimit from '@fastify/rate-limit';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { roleSchema } from '../../domain/accounts/team/events.js';
import {
  acceptInvitation,
  changeTeammateRole,
  inviteTeammate,
  previewInvitation,
  removeTeammate,
  revokeInvitation,
  type InvitationView,
} from '../../commands/accounts/teammates.js';
import { INVITATIONS, type InvitationDoc } from '../../projections/invitations/invitationsProjection.js';
import { activeLoginSessionIds } from '../../projections/loginSessions/loginSessionsProjection.js';
import { TEAMMATES, type TeammateDoc } from '../../projections/teammates/teammatesProjection.js';
import { authenticator, authOf, requireSession } from '../authenticate.js';
import { HttpError, notFound } from '../errors.js';
import type { HttpServices } from '../services.js';
import { errorBody, errorResponses, listQuery } from './schemas.js';
import { newPassword, sessionSchema } from './auth.js';

const teammate = z.object({ id: z.uuid(), email: z.string(), name: z.string().nullable(), role: roleSchema, joinedAt: z.string() });
const invitation = z.object({
  id: z.uuid(),
  email: z.string(),
  role: roleSchema,
  invitedBy: z.uuid(),
  createdAt: z.string(),
  expiresAt: z.string(),
  expired: z.boolean(),
});
const teammateView = (d: TeammateDoc) => ({ id: d.id, email: d.email, name: d.name, role: d.role, joinedAt: d.joinedAt });
const invitationView = (d: InvitationView, now: number) => ({
  id: d.id,
  email: d.email,
  role: d.role,
  invitedBy: d.invitedBy,
  createdAt: d.createdAt,
  expiresAt: d.expiresAt,
  expired: Date.parse(d.expiresAt) <= now,
});
const userIdParam = z.object({ userId: z.string().max(64) });
const isUuid = (v: string) => z.uuid().safeParse(v).success;
const teamErrors = { ...errorResponses, 409: errorBody };
const token = z.string().min(1).max(256);

/** The invitation link: a dashboard page; the token sits in the URL fragment, so no server or proxy logs it. */
const invitationUrl = (services: HttpServices, token: string) => `${services.config.dashboardUrl ?? services.config.publicBaseUrl}/#/accept-invitation/${token}`;

/** Team: teammates and their roles, invitations (owners and admins; see rolePolicy.ts), and the public accept routes. */
export function teamRoutes(services: HttpServices): FastifyPluginAsyncZod {
  return async (app) => {
    await app.register(protectedTeamRoutes(services));
    await app.register(acceptRoutes(services));
  };
}

function protectedTeamRoutes(services: HttpServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.addHook('onRequest', authenticator(services));
    const tags = ['team'];
    const security = [{ bearer: [] }];

    app.get(
      '/api/team',
      { schema: { tags, security, querystring: listQuery, response: { 200: z.object({ teammates: z.array(teammate), nextCursor: z.string().nullable() }), ...errorResponses } } },
      async (request) => {
        const { companyId } = authOf(request);
        const page = await services.readStore.find<TeammateDoc>(TEAMMATES, {
          where: { companyId, status: 'active' },
          orderBy: [{ field: 'joinedAt', direction: 'asc' }],
          limit: request.query.limit,
          cursor: request.query.cursor,
        });
        return { teammates: page.items.map(teammateView), nextCursor: page.nextCursor };
      },
    );

    app.patch(
      '/api/team/:userId',
      { schema: { tags, security, params: userIdParam, body: z.strictObject({ role: roleSchema }), response: { 200: z.object({ teammate }), ...teamErrors } } },
      async (request) => {
        const auth = requireSession(request);
        if (!isUuid(request.params.userId)) throw notFound('Teammate');
        const result = await changeTeammateRole(services.commands, {
          actor: { userId: auth.userId, role: auth.role },
          companyId: auth.companyId,
          userId: request.params.userId,
          role: request.body.role,
        });
        await services.waitForProjections(result.position);
        const doc = await services.readStore.get<TeammateDoc>(TEAMMATES, request.params.userId);
        if (!doc || doc.companyId !== auth.companyId) throw notFound('Teammate');
        return { teammate: teammateView(doc) };
      },
    );

    app.delete(
      '/api/team/:userId',
      { schema: { tags, security, params: userIdParam, response: { 204: z.null(), ...teamErrors } } },
      async (request, reply) => {
        const auth = requireSession(request);
        if (!isUuid(request.params.userId)) throw notFound('Teammate');
        const result = await removeTeammate(services.commands, (userId) => activeLoginSessionIds(services.readStore, userId), {
          actor: { userId: auth.userId, role: auth.role },
          companyId: auth.companyId,
          userId: request.params.userId,
        });
        await services.waitForProjections(result.position);
        return reply.status(204).send(null);
      },
    );

    app.get(
      '/api/team/invitations',
      {
        schema: {
          tags,
          security,
          description: 'Invitations not yet accepted or revoked, newest first; `expired` ones can only be revoked.',
          querystring: listQuery,
          response: { 200: z.object({ invitations: z.array(invitation), nextCursor: z.string().nullable() }), ...errorResponses },
        },
      },
      async (request) => {
        const { companyId } = authOf(request);
        const page = await services.readStore.find<InvitationDoc>(INVITATIONS, {
          where: { companyId, status: 'pending' },
          orderBy: [{ field: 'createdAt', direction: 'desc' }],
          limit: request.query.limit,
          cursor: request.query.cursor,
        });
        const now = services.commands.clock.now().getTime();
        return { invitations: page.items.map((d) => invitationView(d, now)), nextCursor: page.nextCursor };
      },
    );

    app.post(
      '/api/team/invitations',
      {
        schema: {
          tags,
          security,
          description:
            'Invites an email with a role. `invitationUrl` carries a single-use token and is returned only here, once; with SMTP configured it is also emailed (`emailed`).',
          body: z.strictObject({ email: z.string().trim().max(254).pipe(z.email({ message: 'must be an email address' })), role: roleSchema }),
          response: { 201: z.object({ invitation, invitationUrl: z.string(), emailed: z.boolean() }), ...teamErrors },
        },
      },
      async (request, reply) => {
        const auth = requireSession(request);
        const created = await inviteTeammate(
          { ...services.commands, invitationTtlMs: services.config.invitationTtlMs },
          { actor: { userId: auth.userId, role: auth.role }, companyId: auth.companyId, email: request.body.email, role: request.body.role },
        );
        const url = invitationUrl(services, created.token);
        const emailed = await mailInvitation(services, created.invitation, url);
        await services.waitForProjections(created.position);
        return reply.status(201).send({ invitation: invitationView(created.invitation, services.commands.clock.now().getTime()), invitationUrl: url, emailed });
      },
    );

    app.delete(
      '/api/team/invitations/:id',
      { schema: { tags, security, params: z.object({ id: z.string().max(64) }), response: { 204: z.null(), ...errorResponses } } },
      async (request, reply) => {
        const auth = requireSession(request);
        if (!isUuid(request.params.id)) throw notFound('Invitation');
        const result = await revokeInvitation(services.commands, { actor: { userId: auth.userId, role: auth.role }, companyId: auth.companyId, invitationId: request.params.id });
        await services.waitForProjections(result.position);
        return reply.status(204).send(null);
      },
    );
  };
}

/** Public: whoever holds the link. Unknown token 404 NOT_FOUND; accepted, revoked or expired 410. */
function acceptRoutes(services: HttpServices): FastifyPluginAsyncZod {
  return async (app) => {
    await app.register(rateLimit, {
      global: false,
      errorResponseBuilder: (_req, ctx) => new HttpError(429, 'RATE_LIMITED', `Too many requests, retry in ${Math.ceil(ctx.ttl / 1000)} s`),
    });
    const config = { rateLimit: { max: services.config.authRateLimitPerMinute, timeWindow: 60_000 } };
    const goneErrors = { ...errorResponses, 409: errorBody, 410: errorBody };

    app.post(
      '/api/auth/invitation',
      {
        config,
        schema: {
          tags: ['auth'],
          description: 'What an invitation link is for, before accepting it.',
          body: z.strictObject({ token }),
          response: { 200: z.object({ invitation: z.object({ email: z.string(), role: roleSchema, companyName: z.string(), expiresAt: z.string() }) }), ...goneErrors },
        },
      },
      async (request) => ({ invitation: await previewInvitation(services.commands, request.body.token) }),
    );

    app.post(
      '/api/auth/accept-invitation',
      {
        config,
        schema: {
          tags: ['auth'],
          description: 'Creates the invited user in the inviting company with the invited role and signs them in (the login response).',
          body: z.strictObject({ token, name: z.string().trim().min(1).max(200), password: newPassword }),
          response: { 200: z.object({ session: sessionSchema, user: z.object({ id: z.uuid(), email: z.string(), companyId: z.number().int() }) }), ...goneErrors },
        },
      },
      async (request) => acceptInvitation(services.auth, request.body),
    );
  };
}

async function mailInvitation(services: HttpServices, invitation: InvitationView, url: string): Promise<boolean> {
  if (!services.mailer) return false;
  try {
    await services.mailer.send({
      to: invitation.email,
      subject: 'You are invited to a support team',
      text: `You have been invited to join a team on the Messaging Agent Service as ${invitation.role}.\n\nAccept the invitation and choose your password: ${url}\n\nThe link works once and expires ${invitation.expiresAt}.`,
    });
    return true;
  } catch (err) {
    // The link itself is never logged: the dashboard shows it once instead.
    services.commands.logger.warn({ err: (err as Error).name, invitationId: invitation.id }, 'invitation email not sent; the link is shown in the dashboard');
    return false;
  }
}
