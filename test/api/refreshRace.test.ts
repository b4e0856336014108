import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, uniqueEmail, type TestServer } from '../support/testServer.js';

/**
 * Two browser tabs refreshing with one refresh token at the same moment is a race, not a theft: both get the
 * same usable session. A rotated token presented again after the grace window is still a replay and revokes
 * the whole family (RFC 9700). Real concurrent HTTP requests against a listening server.
 */
let server: TestServer;
let base: string;
let offsetMs = 0;
const GRACE_SECONDS = 30;

beforeAll(async () => {
  server = await startTestServer({ REFRESH_TOKEN_REUSE_GRACE_SECONDS: String(GRACE_SECONDS) }, undefined, {
    clock: { now: () => new Date(Date.now() + offsetMs) },
  });
  base = await server.listen(0, '127.0.0.1');
});
afterAll(async () => server?.close());

const post = async (path: string, body: unknown) => {
  const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as any };
};
const me = async (accessToken: string) => (await fetch(`${base}/api/auth/me`, { headers: { authorization: `Bearer ${accessToken}` } })).status;
const refresh = (token: string) => post('/api/auth/refresh', { refresh_token: token });

async function login() {
  const email = uniqueEmail('tabs');
  expect((await post('/api/auth/register', { email, password: 'correct horse', companyName: 'Tabs' })).status).toBe(201);
  const res = await post('/api/auth/login', { email, password: 'correct horse' });
  expect(res.status).toBe(200);
  return res.body.session as { access_token: string; refresh_token: string; expires_at: number };
}

describe('concurrent refreshes with one refresh token', () => {
  it('10 in parallel all succeed with the same rotated refresh token, and every returned session works', async () => {
    const session = await login();
    const results = await Promise.all(Array.from({ length: 10 }, () => refresh(session.refresh_token)));

    expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
    const refreshTokens = new Set(results.map((r) => r.body.session.refresh_token));
    expect(refreshTokens.size).toBe(1);
    expect(refreshTokens.has(session.refresh_token)).toBe(false);
    for (const r of results) expect(await me(r.body.session.access_token)).toBe(200);

    // The session lives on: the rotated token refreshes again, and the old access tokens still work.
    const next = await refresh(results[0]!.body.session.refresh_token);
    expect(next.status).toBe(200);
    expect(await me(next.body.session.access_token)).toBe(200);
    expect(await me(session.access_token)).toBe(200);
  });

  it('a late tab within the grace window gets the head of the family, even after it moved on', async () => {
    const session = await login();
    const first = await refresh(session.refresh_token);
    const second = await refresh(first.body.session.refresh_token);
    expect(second.status).toBe(200);

    const late = await refresh(session.refresh_token);
    expect(late.status).toBe(200);
    expect(late.body.session.refresh_token).toBe(second.body.session.refresh_token);
    expect(await me(late.body.session.access_token)).toBe(200);
    expect(await me(second.body.session.access_token)).toBe(200);
  });

  it('a rotated token replayed after the grace window revokes the whole family', async () => {
    const session = await login();
    const results = await Promise.all(Array.from({ length: 3 }, () => refresh(session.refresh_token)));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
    const head = results[0]!.body.session;

    offsetMs += (GRACE_SECONDS + 1) * 1000;
    const replay = await refresh(session.refresh_token);
    expect(replay.status).toBe(401);
    expect(replay.body).toEqual({ error: { code: 'REFRESH_FAILED', message: expect.any(String) } });

    // The thief's and the owner's newest tokens are both dead now.
    expect((await refresh(head.refresh_token)).status).toBe(401);
    expect(await me(head.access_token)).toBe(401);
  });

  it('stores neither the refresh tokens nor the access tokens it hands out', async () => {
    const session = await login();
    const results = await Promise.all(Array.from({ length: 4 }, () => refresh(session.refresh_token)));
    const all = JSON.stringify(await server.adapters.eventStore.readAll({}), (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
    for (const token of [session.refresh_token, ...results.map((r) => r.body.session.refresh_token)]) {
      expect(all).not.toContain(token.split('.')[1]);
    }
    for (const r of results) expect(all).not.toContain(r.body.session.access_token.split('.')[2]);
  });
});
