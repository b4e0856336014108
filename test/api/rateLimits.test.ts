import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createArgonHasher } from '../../src/infrastructure/auth/argonHasher.js';
import { startTestServer, uniqueEmail, type TestServer } from '../support/testServer.js';

describe('rate limits on register, login and refresh', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ AUTH_RATE_LIMIT_PER_MINUTE: '5', AUTH_EMAIL_RATE_LIMIT_PER_MINUTE: '3' });
  });
  afterAll(async () => server?.close());

  const login = (email: string, ip: string) =>
    server.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email, password: 'wrong password' }, remoteAddress: ip });

  it('per email: the 4th attempt within a minute is 429 RATE_LIMITED with Retry-After, whatever the IP', async () => {
    const email = uniqueEmail('target');
    for (let i = 0; i < 3; i++) expect((await login(email, `10.0.0.${i + 1}`)).statusCode).toBe(401);
    const limited = await login(email.toUpperCase(), '10.0.0.99');
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toEqual({ error: { code: 'RATE_LIMITED', message: expect.any(String) } });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // Another account from the same IP is not affected.
    expect((await login(uniqueEmail('other'), '10.0.0.99')).statusCode).toBe(401);
  });

  it.each([
    ['/api/auth/login', () => ({ email: uniqueEmail(), password: 'x' })],
    ['/api/auth/register', () => ({ email: 'not-an-email', password: 'correct horse', companyName: 'X' })],
    ['/api/auth/refresh', () => ({ refresh_token: 'x' })],
  ] as const)('per IP on %s: the 6th request within a minute is 429 RATE_LIMITED with Retry-After', async (url, payload) => {
    const ip = `10.9.9.${url.length}`;
    for (let i = 0; i < 5; i++) expect((await server.app.inject({ method: 'POST', url, payload: payload(), remoteAddress: ip })).statusCode).not.toBe(429);
    const res = await server.app.inject({ method: 'POST', url, payload: payload(), remoteAddress: ip });
    expect(res.statusCode).toBe(429);
    expect(res.json()).toEqual({ error: { code: 'RATE_LIMITED', message: expect.any(String) } });
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    // Other clients are unaffected.
    expect((await server.app.inject({ method: 'POST', url, payload: payload(), remoteAddress: '10.1.2.3' })).statusCode).not.toBe(429);
  });
});

describe('argon2 work cap', () => {
  it('runs hashes one at a time and refuses with RATE_LIMITED beyond the queue', async () => {
    const hasher = createArgonHasher({ maxConcurrent: 1, maxQueued: 2 });
    const results = await Promise.allSettled(Array.from({ length: 5 }, (_, i) => hasher.hash(`password-${i}`)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(refused).toHaveLength(2);
    for (const r of refused) expect(r.reason).toMatchObject({ code: 'RATE_LIMITED' });
    const hash = (results[0] as PromiseFulfilledResult<string>).value;
    expect(hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(await hasher.verify(hash, 'password-0')).toBe(true);
    expect(await hasher.verify(hash, 'password-1')).toBe(false);
  });
});
