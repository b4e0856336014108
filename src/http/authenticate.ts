import type { FastifyReply, FastifyRequest } from 'fastify';
import { memberRole } from '../commands/accounts/membership.js';
import { isSessionActive } from '../commands/accounts/logins.js';
import type { Role } from '../domain/accounts/team/events.js';
import { isApiTokenShaped, verifyApiToken } from '../commands/apiTokens/apiTokens.js';
import { forbidden, unauthorized } from './errors.js';
import { rolesFor } from './rolePolicy.js';
import type { HttpServices } from './services.js';

export interface AuthContext {
  kind: 'session' | 'api_token';
  companyId: string;
  userId: string;
  /**
   * The user's current role (team stream); an API token's is its creator's current role, never above admin
   * (apiTokenRole).
   */
  role: Role;
  sessionId?: string;
  tokenId?: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    auth?: AuthContext;
  }
}

const BEARER = /^Bearer ([\x21-\x7e]{1,4096})$/;

/**
 * The one authentication step for both token types. It yields the caller's company and user; every
 * command and query takes them from here, never from the request body.
 */
export function authenticator(services: HttpServices) {
  return async function authenticate(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const header = request.headers.authorization;
    const token = typeof header === 'string' ? BEARER.exec(header)?.[1] : undefined;
    request.auth = await resolveToken(services, token);
    const allowed = rolesFor(request.method, request.routeOptions.url ?? '');
    if (allowed && !allowed.includes(request.auth.role)) throw forbidden(`Your role (${request.auth.role}) may not use this`);
  };
}

export async function resolveToken(services: HttpServices, token: string | undefined): Promise<AuthContext> {
  if (!token) throw unauthorized();
  if (isApiTokenShaped(token)) {
    const found = await verifyApiToken(services.commands, token);
    if (!found) throw unauthorized('Invalid or revoked API token');
    // Acts for its creator with no more than their current role (never the team or API tokens: those need a
    // person's session, see requireSession), and stops when they leave the team.
    return { kind: 'api_token', companyId: found.companyId, userId: found.createdBy, role: found.role, tokenId: found.tokenId };
  }
  let claims;
  try {
    claims = await services.auth.tokens.verify(token);
  } catch {
    throw unauthorized('Invalid or expired access token');
  }
  // Both are the streams' current state: a logout, a removal from the team or a role change applies to the
  // very next request, not when the access token expires.
  const [active, role] = await Promise.all([isSessionActive(services.auth, claims.sessionId), memberRole(services.auth, claims.companyId, claims.userId)]);
  if (!active) throw unauthorized('Session has ended');
  if (!role) throw unauthorized('You are no longer a member of this company');
  return { kind: 'session', companyId: claims.companyId, userId: claims.userId, role, sessionId: claims.sessionId };
}

export function authOf(request: FastifyRequest): AuthContext {
  if (!request.auth) throw unauthorized();
  return request.auth;
}

/** Creating or revoking API tokens needs a person's session, not another API token. */
export function requireSession(request: FastifyRequest): AuthContext & { sessionId: string } {
  const auth = authOf(request);
  if (auth.kind !== 'session' || !auth.sessionId) throw forbidden('This action needs a signed-in user, not an API token');
  return auth as AuthContext & { sessionId: string };
}
