import { jwtVerify, SignJWT } from 'jose';
import type { AccessClaims, AccessTokens } from '../../ports/accessTokens.js';

export const JWT_ISSUER = 'messaging-agent-service';
export const JWT_AUDIENCE = 'messaging-agent-service:api';
const ALGORITHM = 'HS256';

/** Session JWTs: HS256 pinned on verification, with issuer, audience and exp required. */
export function createJwtAccessTokens(options: { key: Uint8Array; ttlSeconds: number; now?: () => Date }): AccessTokens {
  const now = options.now ?? (() => new Date());
  return {
    async issue(claims) {
      const iat = Math.floor(now().getTime() / 1000);
      const expiresAt = iat + options.ttlSeconds;
      const token = await new SignJWT({ cid: claims.companyId, ckey: claims.companyKey, sid: claims.sessionId, typ: 'access' })
        .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
        .setSubject(claims.userId)
        .setIssuer(JWT_ISSUER)
        .setAudience(JWT_AUDIENCE)
        .setIssuedAt(iat)
        .setExpirationTime(expiresAt)
        .sign(options.key);
      return { token, expiresAt };
    },
    async verify(token) {
      const { payload } = await jwtVerify(token, options.key, {
        algorithms: [ALGORITHM],
        issuer: JWT_ISSUER,
        audience: JWT_AUDIENCE,
        requiredClaims: ['exp', 'sub', 'iat'],
        currentDate: now(),
      });
      const { sub, cid, ckey, sid, typ } = payload as Record<string, unknown>;
      if (typ !== 'access' || typeof sub !== 'string' || typeof cid !== 'string' || typeof sid !== 'string' || typeof ckey !== 'number') {
        throw new Error('token claims have the wrong shape');
      }
      return { userId: sub, companyId: cid, companyKey: ckey, sessionId: sid } satisfies AccessClaims;
    },
  };
}
