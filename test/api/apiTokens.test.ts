import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, type Company } from '../support/api.js';
import { ISO_MS, UUID } from '../support/formats.js';
import { startTestServer, uniqueEmail, type TestServer } from '../support/testServer.js';

/** /api/settings/api-tokens (src/http/routes/apiTokens.ts). */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server?.close());

/** A teammate of `owner`'s company with `role`, joined through an invitation and signed in. */
async function teammate(owner: Company, role: 'admin' | 'agent') {
  const invited = await owner.call('POST', '/api/team/invitations', { email: uniqueEmail(role), role });
  expect(invited.statusCode).toBe(201);
  const url = invited.json().invitationUrl as string;
  const token = url.slice(url.indexOf('#/accept-invitation/') + '#/accept-invitation/'.length);
  const accepted = await server.app.inject({ method: 'POST', url: '/api/auth/accept-invitation', payload: { token, name: `A ${role}`, password: 'teammate password' } });
  expect(accepted.statusCode).toBe(200);
  const bearer = accepted.json().session.access_token as string;
  return { userId: accepted.json().user.id as string, bearer, call: (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown) => owner.call(method, url, payload, bearer) };
}

describe('company API tokens', () => {
  it('created (shown once), listed without the secret, used, and revoked effective on the next request', async () => {
    const co = await signUp(server);
    const created = await co.call('POST', '/api/settings/api-tokens', { name: 'CI script' });
    expect(created.statusCode).toBe(201);
    const { token, apiToken } = created.json();
    expect(token).toMatch(/^mas_[0-9a-f]{32}_[A-Za-z0-9_-]{43}$/);
    expect(apiToken).toEqual({ id: expect.stringMatching(UUID), name: 'CI script', prefix: token.slice(0, 12), createdAt: expect.stringMatching(ISO_MS), lastUsedAt: null, createdBy: { id: co.user.id, name: null, email: co.email, role: 'owner' } });

    const me = await co.call('GET', '/api/auth/me', undefined, token);
    expect(me.statusCode).toBe(200);

    const list = await co.call('GET', '/api/settings/api-tokens');
    expect(list.json().apiTokens).toHaveLength(1);
    expect(JSON.stringify(list.json())).not.toContain(token.slice(13));
    await expect.poll(async () => (await co.call('GET', '/api/settings/api-tokens')).json().apiTokens[0].lastUsedAt).toMatch(ISO_MS);

    const del = await co.call('DELETE', `/api/settings/api-tokens/${apiToken.id}`);
    expect(del.statusCode).toBe(204);
    expect((await co.call('GET', '/api/auth/me', undefined, token)).statusCode).toBe(401);
    expect((await co.call('GET', '/api/settings/api-tokens')).json().apiTokens).toEqual([]);
  });

  it('an API token cannot create or revoke API tokens: 403 FORBIDDEN', async () => {
    const co = await signUp(server);
    const { token, apiToken } = (await co.call('POST', '/api/settings/api-tokens', { name: 'x' })).json();
    const create = await co.call('POST', '/api/settings/api-tokens', { name: 'y' }, token);
    expect(create.statusCode).toBe(403);
    expect(create.json().error.code).toBe('FORBIDDEN');
    const revoke = await co.call('DELETE', `/api/settings/api-tokens/${apiToken.id}`, undefined, token);
    expect(revoke.statusCode).toBe(403);
    // An API token can still read.
    expect((await co.call('GET', '/api/settings/api-tokens', undefined, token)).statusCode).toBe(200);
  });

  it('never stores the token itself, only its hash', async () => {
    const co = await signUp(server);
    const { token } = (await co.call('POST', '/api/settings/api-tokens', { name: 'x' })).json();
    const all = JSON.stringify(await server.adapters.eventStore.readAll({}), (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
    expect(all).not.toContain(token.slice(13));
  });

  it('the list says who created each token', async () => {
    const co = await signUp(server);
    const admin = await teammate(co, 'admin');
    const created = await admin.call('POST', '/api/settings/api-tokens', { name: 'by the admin' });
    expect(created.statusCode).toBe(201);
    expect(created.json().apiToken.createdBy).toEqual({ id: admin.userId, name: 'A admin', email: expect.any(String), role: 'admin' });
    const list = (await co.call('GET', '/api/settings/api-tokens')).json().apiTokens;
    expect(list).toEqual([expect.objectContaining({ name: 'by the admin', createdBy: { id: admin.userId, name: 'A admin', email: expect.any(String), role: 'admin' } })]);
  });
});

describe("a token's power ends with its creator's", () => {
  it("given an admin's token, when the admin is demoted to agent, then the token acts as an agent: 403 on an admin-only route", async () => {
    const co = await signUp(server);
    const admin = await teammate(co, 'admin');
    const { token } = (await admin.call('POST', '/api/settings/api-tokens', { name: 'admin script' })).json();
    expect((await co.call('GET', '/api/credits', undefined, token)).statusCode).toBe(200);

    expect((await co.call('PATCH', `/api/team/${admin.userId}`, { role: 'agent' })).statusCode).toBe(200);

    const credits = await co.call('GET', '/api/credits', undefined, token);
    expect(credits.statusCode).toBe(403);
    expect(credits.json().error.code).toBe('FORBIDDEN');
    // What an agent may do, the token still may.
    expect((await co.call('GET', '/api/conversations', undefined, token)).statusCode).toBe(200);
  });

  it("given an admin's token, when the admin is removed, then the token is refused: 401", async () => {
    const co = await signUp(server);
    const admin = await teammate(co, 'admin');
    const { token } = (await admin.call('POST', '/api/settings/api-tokens', { name: 'admin script' })).json();
    expect((await co.call('GET', '/api/conversations', undefined, token)).statusCode).toBe(200);

    expect((await co.call('DELETE', `/api/team/${admin.userId}`)).statusCode).toBe(204);

    const res = await co.call('GET', '/api/conversations', undefined, token);
    expect(res.statusCode).toBe(401);
    expect(res.json().error.code).toBe('UNAUTHORIZED');
    // And the removal revoked it: it leaves the company's list.
    expect((await co.call('GET', '/api/settings/api-tokens')).json().apiTokens).toEqual([]);
  });

  it("given the owner's token, then it acts as an admin, never above (the team and API tokens need a person)", async () => {
    const co = await signUp(server);
    const { token } = (await co.call('POST', '/api/settings/api-tokens', { name: 'owner script' })).json();
    expect((await co.call('GET', '/api/credits', undefined, token)).statusCode).toBe(200);
    expect((await co.call('POST', '/api/team/invitations', { email: uniqueEmail(), role: 'agent' }, token)).statusCode).toBe(403);
  });
});
