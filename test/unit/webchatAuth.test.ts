import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { conversationIdFor } from '../../src/commands/conversations/conversationIds.js';
import { InvalidVisitorTokenError } from '../../src/ports/visitorTokens.js';
import { originAllowed } from '../../src/http/webchat/originPolicy.js';
import { createJwtAccessTokens, JWT_ISSUER } from '../../src/infrastructure/auth/jwtAccessTokens.js';
import { createVisitorTokens, VISITOR_TOKEN_AUDIENCE } from '../../src/infrastructure/auth/visitorTokens.js';

const key = new TextEncoder().encode('k'.repeat(40));
const claims = { integrationId: 7, visitorId: 'v-1', conversationId: conversationIdFor(7, 'v-1') };

describe('visitor tokens', () => {
  it('round-trips the claims', async () => {
    const tokens = createVisitorTokens({ key, conversationIdFor });
    expect(await tokens.verify(await tokens.issue(claims))).toEqual(claims);
    // A signed visitor's token names the user, so only that user's signature continues it.
    expect(await tokens.verify(await tokens.issue({ ...claims, userId: 'u-ann' }))).toEqual({ ...claims, userId: 'u-ann' });
  });

  it('expire after their lifetime (180 days by default)', async () => {
    let now = new Date('2030-01-01T00:00:00Z');
    const tokens = createVisitorTokens({ key, conversationIdFor, now: () => now });
    const token = await tokens.issue(claims);
    now = new Date('2030-06-29T00:00:00Z');
    await expect(tokens.verify(token)).resolves.toEqual(claims);
    now = new Date('2030-07-01T00:00:00Z');
    await expect(tokens.verify(token)).rejects.toBeInstanceOf(InvalidVisitorTokenError);
  });

  it('refuse another key, a session JWT, another audience and claims that do not fit together', async () => {
    const tokens = createVisitorTokens({ key, conversationIdFor });
    const other = await createVisitorTokens({ key: new TextEncoder().encode('o'.repeat(40)), conversationIdFor }).issue(claims);
    const session = (await createJwtAccessTokens({ key, ttlSeconds: 900 }).issue({ userId: 'u', companyId: 'c', companyKey: 1, sessionId: 's' })).token;
    const sign = (payload: Record<string, unknown>, audience = VISITOR_TOKEN_AUDIENCE) =>
      new SignJWT({ typ: 'visitor', ...payload })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(String(payload.visitorId))
        .setIssuer(JWT_ISSUER)
        .setAudience(audience)
        .setIssuedAt()
        .setExpirationTime('1h')
        .sign(key);
    const wrongAudience = await sign(claims, 'messaging-agent-service:api');
    const wrongConversation = await sign({ ...claims, conversationId: conversationIdFor(8, 'v-1') });
    const noExpiry = await new SignJWT({ typ: 'visitor', ...claims }).setProtectedHeader({ alg: 'HS256' }).setSubject('v-1').setIssuer(JWT_ISSUER).setAudience(VISITOR_TOKEN_AUDIENCE).sign(key);
    for (const token of [other, session, wrongAudience, wrongConversation, noExpiry, 'not-a-jwt']) {
      await expect(tokens.verify(token)).rejects.toBeInstanceOf(InvalidVisitorTokenError);
    }
    // And a visitor token is not a session token.
    await expect(createJwtAccessTokens({ key, ttlSeconds: 900 }).verify(await tokens.issue(claims))).rejects.toThrow();
  });
});

describe('allowed origins', () => {
  const allowed = ['https://shop.example.com', 'http://localhost:8080'];
  it.each([
    ['https://shop.example.com', true],
    ['https://SHOP.example.com', true],
    ['https://shop.example.com:443', true],
    ['http://localhost:8080', true],
    ['http://shop.example.com', false],
    ['https://shop.example.com.evil.example', false],
    ['https://evil.example', false],
    ['http://localhost:8081', false],
    ['null', false],
    ['', false],
    [undefined, false],
    ['not a url', false],
  ])('%s → %s', (origin, expected) => {
    expect(originAllowed(origin, allowed)).toBe(expected);
  });
});
