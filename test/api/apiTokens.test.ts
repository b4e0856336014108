import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, uniqueEmail, type TestServer } from '../support/testServer.js';

/** /api/settings/api-tokens (src/http/routes/apiTokens.ts). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server?.close());

const post = (url: string, payload: unknown, headers: Record<string, string> = {}) =>
  server.app.inject({ method: 'POST', url, payload: payload as object, headers });
const get = (url: string, token?: string) => server.app.inject({ method: 'GET', url, headers: token ? { authorization: `Bearer ${token}` } : {} });

async function registerAndLogin(email = uniqueEmail(), companyName = 'Acme') {
  const reg = await post('/api/auth/register', { email, password: 'correct horse', companyName });
  expect(reg.statusCode).toBe(201);
  const login = await post('/api/auth/login', { email, password: 'correct horse' });
  expect(login.statusCode).toBe(200);
  return { session: login.json().session } as { session: any };
}

describe('company API tokens', () => {
  it('created (shown once), listed without the secret, used, and revoked effective on the next request', async () => {
    const { session } = await registerAndLogin();
    const auth = { authorization: `Bearer ${session.access_token}` };
    const created = await post('/api/settings/api-tokens', { name: 'CI script' }, auth);
    expect(created.statusCode).toBe(201);
    const { token, apiToken } = created.json();
    expect(token).toMatch(/^mas_[0-9a-f]{32}_[A-Za-z0-9_-]{43}$/);
    expect(apiToken).toEqual({ id: expect.stringMatching(UUID), name: 'CI script', prefix: token.slice(0, 12), createdAt: expect.stringMatching(ISO_MS), lastUsedAt: null });

    const me = await get('/api/auth/me', token);
    expect(me.statusCode).toBe(200);

    const list = await get('/api/settings/api-tokens', session.access_token);
    expect(list.json().apiTokens).toHaveLength(1);
    expect(JSON.stringify(list.json())).not.toContain(token.slice(13));
    await expect.poll(async () => (await get('/api/settings/api-tokens', session.access_token)).json().apiTokens[0].lastUsedAt).toMatch(ISO_MS);

    const del = await server.app.inject({ method: 'DELETE', url: `/api/settings/api-tokens/${apiToken.id}`, headers: auth });
    expect(del.statusCode).toBe(204);
    expect((await get('/api/auth/me', token)).statusCode).toBe(401);
    expect((await get('/api/settings/api-tokens', session.access_token)).json().apiTokens).toEqual([]);
  });

  it('an API token cannot create or revoke API tokens: 403 FORBIDDEN', async () => {
    const { session } = await registerAndLogin();
    const { token, apiToken } = (await post('/api/settings/api-tokens', { name: 'x' }, { authorization: `Bearer ${session.access_token}` })).json();
    const create = await post('/api/settings/api-tokens', { name: 'y' }, { authorization: `Bearer ${token}` });
    expect(create.statusCode).toBe(403);
    expect(create.json().error.code).toBe('FORBIDDEN');
    const revoke = await server.app.inject({ method: 'DELETE', url: `/api/settings/api-tokens/${apiToken.id}`, headers: { authorization: `Bearer ${token}` } });
    expect(revoke.statusCode).toBe(403);
    // An API token can still read.
    expect((await get('/api/settings/api-tokens', token)).statusCode).toBe(200);
  });

  it('never stores the token itself, only its hash', async () => {
    const { session } = await registerAndLogin();
    const { token } = (await post('/api/settings/api-tokens', { name: 'x' }, { authorization: `Bearer ${session.access_token}` })).json();
    const all = JSON.stringify(await server.adapters.eventStore.readAll({}), (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
    expect(all).not.toContain(token.slice(13));
  });
});
