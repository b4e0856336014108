import rateLimit from '@fastify/rate-limit';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { normalizeEmail } from '../../domain/accounts/emailReservation/decider.js';
import { registerCompany } from '../../commands/accounts/registerCompany.js';
import { login, logout, refreshSession } from '../../commands/accounts/logins.js';
import { loadCompany, loadUser } from '../../commands/accounts/streamReads.js';
import { authenticator, authOf } from '../authenticate.js';
import { HttpError, notFound } from '../errors.js';
import { keyedLimiter } from '../rateLimit.js';
import type { HttpServices } from '../services.js';
import { loginSchema, logoutSchema, meSchema, refreshSchema, registerSchema } from './auth.schemas.js';
import type { ZodApp } from './zodApp.js';

/** Registration, sign-in and session refresh (rate-limited per IP and per email), sign-out and the signed-in account. */
export function authRoutes(services: HttpServices): FastifyPluginAsyncZod {
  return async (app) => {
    await app.register(rateLimit, {
      global: false,
      errorResponseBuilder: (_req, ctx) => new HttpError(429, 'RATE_LIMITED', `Too many requests, retry in ${Math.ceil(ctx.ttl / 1000)} s`),
    });
    registerSignIn(app, services);
    registerSession(app, services);
  };
}

function registerSignIn(app: ZodApp, services: HttpServices): void {
  const config = { rateLimit: { max: services.config.authRateLimitPerMinute, timeWindow: 60_000 } };
  const emailLimit = keyedLimiter({ max: services.config.authEmailRateLimitPerMinute, windowMs: 60_000 });
  const limitEmail = (value: string) => emailLimit(normalizeEmail(value));

  app.post('/api/auth/register', { config, schema: registerSchema }, async (request, reply) => {
    limitEmail(request.body.email);
    const result = await registerCompany(services.auth, request.body);
    await services.waitForProjections(result.position);
    return reply.status(201).send({ user: result.user, company: result.company });
  });

  app.post('/api/auth/login', { config, schema: loginSchema }, async (request) => {
    limitEmail(request.body.email);
    return login(services.auth, request.body);
  });

  app.post('/api/auth/refresh', { config, schema: refreshSchema }, async (request) => refreshSession(services.auth, request.body.refresh_token));
}

function registerSession(app: ZodApp, services: HttpServices): void {
  const authenticate = authenticator(services);

  app.post('/api/auth/logout', { onRequest: authenticate, schema: logoutSchema }, async (request, reply) => {
    const auth = authOf(request);
    if (auth.sessionId) await logout(services.auth, auth.sessionId);
    return reply.status(204).send(null);
  });

  app.get('/api/auth/me', { onRequest: authenticate, schema: meSchema }, async (request) => {
    const auth = authOf(request);
    const [user, company] = await Promise.all([loadUser(services.commands.eventStore, auth.userId), loadCompany(services.commands.eventStore, auth.companyId)]);
    if (!user || !company) throw notFound('User');
    return {
      user: { id: user.userId, email: user.email, companyId: company.companyKey, isSuperadmin: user.isSuperadmin, role: auth.role },
      company: { id: company.companyKey, companyId: company.companyId, companyName: company.name, createdAt: company.createdAt },
    };
  });
}
