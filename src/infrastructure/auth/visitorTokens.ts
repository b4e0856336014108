import { jwtVerify, SignJWT } from 'jose';
import { InvalidVisitorTokenError, type VisitorTokens } from '../../ports/visitorTokens.js';
import { JWT_ISSUER } from './jwtAccessTokens.js';

/** Distinct from the API audience: a visitor token is never a session token, nor the other way round. */
export const VISITOR_TOKEN_AUDIENCE = 'messaging-agent-service:webchat';
export const VISITOR_TOKEN_TTL_SECONDS = 180 * 86_400;
const ALGORITHM = 'HS256';

/**
 * Web chat visitor tokens: HS256 JWTs signed with the session JWT key, audience `…:webchat`, subject the
 * visitor id, claims {integrationId, visitorId, conversationId}; verification pins algorithm, issuer and
 * audience and requires the expiry (180 days, renewed on every connection). A token whose conversation is not
 * the one its integration and visitor derive to (`conversationIdFor`, given by the composition root so the
 * adapter needs no command code) is refused.
 */
export function createVisitorTokens(options: {
  key: Uint8Array;
  conversationIdFor: (integrationId: number, visitorId: string) => string;
  ttlSeconds?: number;
  now?: () => Date;
}): VisitorTokens {
  const now = options.now ?? (() => new Date());
  const ttl = options.ttlSeconds ?? VISITOR_TOKEN_TTL_SECONDS;
  return {
    async issue(claims) {
      const iat = Math.floor(now().getTime() / 1000);
      return new SignJWT({ integrationId: claims.integrationId, visitorId: claims.visitorId, conversationId: claims.conversationId, ...(claims.userId !== undefined ? { userId: claims.userId } : {}), typ: 'visitor' })
        .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
        .setSubject(claims.visitorId)
        .setIssuer(JWT_ISSUER)
        .setAudience(VISITOR_TOKEN_AUDIENCE)
        .setIssuedAt(iat)
        .setExpirationTime(iat + ttl)
        .sign(options.key);
    },
    async verify(token) {
      let payload: Record<string, unknown>;
      try {
        ({ payload } = await jwtVerify(token, options.key, {
          algorithms: [ALGORITHM],
          issuer: JWT_ISSUER,
          audience: VISITOR_TOKEN_AUDIENCE,
          requiredClaims: ['exp', 'sub'],
          currentDate: now(),
        }));
      } catch (err) {
        throw new InvalidVisitorTokenError((err as Error).message);
      }
      const { sub, typ, integrationId, visitorId, conversationId, userId } = payload;
      if (
        typ !== 'visitor' ||
        typeof integrationId !== 'number' ||
        typeof visitorId !== 'string' ||
        sub !== visitorId ||
        typeof conversationId !== 'string' ||
        conversationId !== options.conversationIdFor(integrationId, visitorId) ||
        (userId !== undefined && typeof userId !== 'string')
      ) {
        throw new InvalidVisitorTokenError('claims have the wrong shape');
      }
      return { integrationId, visitorId, conversationId, ...(typeof userId === 'string' ? { userId } : {}) };
    },
  };
}
