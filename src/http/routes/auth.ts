import rateLimit from '@fastify/rate-limit';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { normalizeEmail } from '../../domain/accounts/emailReservation/decider.js';
import { roleSchema } from '../../domain/accounts/team/events.js';
import { registerCompany } from '../../commands/accounts/registerCompany.js';
import { login, logout, refreshSession } from '../../commands/accounts/logins.js';
import { loadCompany, loadUser } from '../../commands/accounts/queries.js';
import { authenticator, authOf } from '../authenticate.js';
import { HttpError, notFound } from '../errors.js';
import { keyedLimiter } from '../rateLimit.js';
import type { HttpServices } from '../services.js';
import { errorResponses } from './schemas.js';

const email = z.string().trim().max(254).pipe(z.email({ message: 'must be an email address' }));
export const newPassword = z.string().min(8, 'must be at least 8 characters').max(1024, 'must be at most 1024 characters');

export const sessionSchema = z.object({ access_token: z.string(), refresh_token: z.string(), expires_at: z.number().int() });

export function authRoutes(services: HttpServices): FastifyPluginAsyncZod {
  return async (app) => {
    const perIp = { max: services.config.authRateLimitPerMinute, timeWindow: 60_000 };
    await app.register(rateLimit, {
      global: false,
      errorResponseBuilder: (_req, ctx) => new HttpError(429, 'RATE_LIMITED', `Too many requests, retry in ${Math.ceil(ctx.ttl / 1000)} s`),
    });
    const emailLimit = keyedLimiter({ max: services.config.authEmailRateLimitPerMinute, windowMs: 60_000 });
    const limitEmail = (value: string) => emailLimit(normalizeEmail(value));
    const authenticate = authenticator(services);

    app.post(
      '/api/auth/register',
      {
        config: { rateLimit: perIp },
        schema: {
          tags: ['auth'],
          body: z.strictObject({ email, password: newPassword, companyName: z.string().trim().min(1).max(200) }),
          response: {
            201: z.object({
              user: z.object({ id: z.uuid(), email: z.string() }),
              company: z.object({ id: z.number().int(), companyId: z.uuid(), companyName: z.string() }),
            }),
            ...errorResponses,
          },
        },
      },
      async (request, reply) => {
        limitEmail(request.body.email);
        const result = await registerCompany(services.auth, request.body);
        await services.waitForProjections(result.position);
        return reply.status(201).send({ user: result.user, company: result.company });
      },
    );

    app.post(
      '/api/auth/login',
      {
        config: { rateLimit: perIp },
        schema: {
          tags: ['auth'],
          // Login does not re-check the password rules: a stored account must always be able to try.
          body: z.strictObject({ email: z.string().max(254), password: z.string().max(1024) }),
          response: {
            200: z.object({ session: sessionSchema, user: z.object({ id: z.uuid(), email: z.string(), companyId: z.number().int() }) }),
            ...errorResponses,
          },
        },
      },
      async (request) => {
        limitEmail(request.body.email);
        return login(services.auth, request.body);
      },
    );

    app.post(
      '/api/auth/refresh',
      {
        config: { rateLimit: perIp },
        schema: {
          tags: ['auth'],
          body: z.strictObject({ refresh_token: z.string().max(512) }),
          response: { 200: z.object({ session: sessionSchema }), ...errorResponses },
        },
      },
      async (request) => refreshSession(services.auth, request.body.refresh_token),
    );

    app.post(
      '/api/auth/logout',
      { onRequest: authenticate, schema: { tags: ['auth'], security: [{ bearer: [] }], response: { 204: z.null(), ...errorResponses } } },
      async (request, reply) => {
        const auth = authOf(request);
        if (auth.sessionId) await logout(services.auth, auth.sessionId);
        return reply.status(204).send(null);
      },
    );

    app.get(
      '/api/auth/me',
      {
        onRequest: authenticate,
        schema: {
          tags: ['auth'],
          security: [{ bearer: [] }],
          response: {
            200: z.object({
              user: z.object({
                id: z.uuid(),
                email: z.string(),
                companyId: z.number().int(),
                isSuperadmin: z.boolean(),
                /** Beyond the spec: the user's team role (owner, admin, agent); the dashboard hides what the role may not use. */
                role: roleSchema,
              }),
              company: z.object({ id: z.number().int(), companyId: z.uuid(), companyName: z.string(), createdAt: z.string() }),
            }),
            ...errorResponses,
          },
        },
      },
      async (request) => {
        const auth = authOf(request);
        const [user, company] = await Promise.all([
          loadUser(services.commands.eventStore, auth.userId),
          loadCompany(services.commands.eventStore, auth.companyId),
        ]);
        if (!user || !company) throw notFound('User');
        return {
          user: { id: user.userId, email: user.email, companyId: company.companyKey, isSuperadmin: user.isSuperadmin, role: auth.role },
          company: { id: company.companyKey, companyId: company.companyId, companyName: company.name, createdAt: company.createdAt },
        };
      },
    );
  };
}
