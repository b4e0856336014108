import rateLimit from '@fastify/rate-limit';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  acceptInvitation,
  changeTeammateRole,
  inviteTeammate,
  previewInvitation,
  revokeInvitation,
  type InvitationView,
} from '../../commands/accounts/teammates.js';
import { nameSelf } from '../../commands/accounts/nameSelf.js';
import { removeTeammate } from '../../commands/accounts/removeTeammate.js';
import type { TeammateRecords } from '../../commands/accounts/teammateRecords.js';
import { liveApiTokenIdsCreatedBy } from '../../projections/apiTokens/queries.js';
import { deskViews } from '../../projections/assignmentDesk/queries.js';
import { conversationIdsAssignedTo } from '../../projections/conversations/queries.js';
import { listPendingInvitations, pendingInvitationIdsSentBy } from '../../projections/invitations/queries.js';
import { activeLoginSessionIds } from '../../projections/loginSessions/loginSessionsProjection.js';
import { findCompanyTeammate, listTeammates } from '../../projections/teammates/queries.js';
import { authenticator, authOf, requireSession } from '../authenticate.js';
import { HttpError, notFound } from '../errors.js';
import type { HttpServices } from '../services.js';
import {
  acceptInvitationSchema,
  changeRoleSchema,
  invitationView,
  inviteSchema,
  listInvitationsSchema,
  listTeamSchema,
  nameSelfSchema,
  previewInvitationSchema,
  removeTeammateSchema,
  revokeInvitationSchema,
  teammateView,
} from './team.schemas.js';
import type { ZodApp } from './zodApp.js';

const isUuid = (v: string) => z.uuid().safeParse(v).success;

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
    registerTeammates(app, services);
    registerInvitations(app, services);
  };
}

function registerTeammates(app: ZodApp, services: HttpServices): void {
  app.get('/api/team', { schema: listTeamSchema }, async (request) => {
    const { companyId } = authOf(request);
    const page = await listTeammates(services.readStore, companyId, request.query);
    const desk = await deskViews(services.readStore, companyId, page.items.map((t) => t.id));
    return { teammates: page.items.map((t) => teammateView(t, desk.get(t.id))), nextCursor: page.nextCursor };
  });

  app.put('/api/team/me/name', { schema: nameSelfSchema }, async (request) => {
    const auth = requireSession(request);
    const result = await nameSelf(services.commands, { companyId: auth.companyId, userId: auth.userId, name: request.body.name });
    await services.waitForProjections(result.position);
    const doc = await findCompanyTeammate(services.readStore, auth.companyId, auth.userId);
    if (!doc) throw notFound('Teammate');
    return { teammate: teammateView(doc) };
  });

  app.patch('/api/team/:userId', { schema: changeRoleSchema }, async (request) => {
    const auth = requireSession(request);
    if (!isUuid(request.params.userId)) throw notFound('Teammate');
    const result = await changeTeammateRole(services.commands, teammateRecords(services), {
      actor: { userId: auth.userId, role: auth.role },
      companyId: auth.companyId,
      userId: request.params.userId,
      role: request.body.role,
    });
    await services.waitForProjections(result.position);
    const doc = await findCompanyTeammate(services.readStore, auth.companyId, request.params.userId);
    if (!doc) throw notFound('Teammate');
    return { teammate: teammateView(doc) };
  });

  app.delete('/api/team/:userId', { schema: removeTeammateSchema }, async (request, reply) => {
    const auth = requireSession(request);
    if (!isUuid(request.params.userId)) throw notFound('Teammate');
    const result = await removeTeammate(services.commands, teammateRecords(services), {
      actor: { userId: auth.userId, role: auth.role },
      companyId: auth.companyId,
      userId: request.params.userId,
    });
    await services.waitForProjections(result.position);
    return reply.status(204).send(null);
  });
}

/** A teammate's sessions, tokens, invitations and conversations in the read models: what a removal or demotion updates. */
const teammateRecords = (services: HttpServices): TeammateRecords => ({
  activeLoginSessions: (userId) => activeLoginSessionIds(services.readStore, userId),
  liveApiTokens: (companyId, userId, limit) => liveApiTokenIdsCreatedBy(services.readStore, companyId, userId, limit),
  pendingInvitations: (companyId, userId, limit, role) => pendingInvitationIdsSentBy(services.readStore, companyId, userId, limit, role),
  assignedConversations: (companyId, userId, limit) => conversationIdsAssignedTo(services.readStore, companyId, userId, limit),
  caughtUp: (position) => services.waitForProjections(position),
});

function registerInvitations(app: ZodApp, services: HttpServices): void {
  const now = () => services.commands.clock.now().getTime();
  app.get('/api/team/invitations', { schema: listInvitationsSchema }, async (request) => {
    const page = await listPendingInvitations(services.readStore, authOf(request).companyId, request.query);
    const at = now();
    return { invitations: page.items.map((d) => invitationView(d, at)), nextCursor: page.nextCursor };
  });

  app.post('/api/team/invitations', { schema: inviteSchema }, async (request, reply) => {
    const auth = requireSession(request);
    const created = await inviteTeammate(
      { ...services.commands, invitationTtlMs: services.config.invitationTtlMs },
      { actor: { userId: auth.userId, role: auth.role }, companyId: auth.companyId, email: request.body.email, role: request.body.role },
    );
    const url = invitationUrl(services, created.token);
    const emailed = await mailInvitation(services, created.invitation, url);
    await services.waitForProjections(created.position);
    return reply.status(201).send({ invitation: invitationView(created.invitation, now()), invitationUrl: url, emailed });
  });

  app.delete('/api/team/invitations/:id', { schema: revokeInvitationSchema }, async (request, reply) => {
    const auth = requireSession(request);
    if (!isUuid(request.params.id)) throw notFound('Invitation');
    const result = await revokeInvitation(services.commands, { actor: { userId: auth.userId, role: auth.role }, companyId: auth.companyId, invitationId: request.params.id });
    await services.waitForProjections(result.position);
    return reply.status(204).send(null);
  });
}

/** Public: whoever holds the link. Unknown token 404 NOT_FOUND; accepted, revoked or expired 410. */
function acceptRoutes(services: HttpServices): FastifyPluginAsyncZod {
  return async (app) => {
    await app.register(rateLimit, {
      global: false,
      errorResponseBuilder: (_req, ctx) => new HttpError(429, 'RATE_LIMITED', `Too many requests, retry in ${Math.ceil(ctx.ttl / 1000)} s`),
    });
    const config = { rateLimit: { max: services.config.authRateLimitPerMinute, timeWindow: 60_000 } };

    app.post('/api/auth/invitation', { config, schema: previewInvitationSchema }, async (request) => ({
      invitation: await previewInvitation(services.commands, request.body.token),
    }));

    app.post('/api/auth/accept-invitation', { config, schema: acceptInvitationSchema }, async (request) => acceptInvitation(services.auth, request.body));
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
