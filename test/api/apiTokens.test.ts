import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp } from '../support/api.js';
import { ISO_MS, UUID } from '../support/formats.js';
import { startTestServer, type TestServer } from '../support/testServer.js';

/** /api/settings/api-tokens (src/http/routes/apiTokens.ts). */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server?.close());

describe('company API tokens', () => {
  it('created (shown once), listed without the secret, used, and revoked effective on the next request', async () => {
    const co = await signUp(server);
    const created = await co.call('POST', '/api/settings/api-tokens', { name: 'CI script' });
    expect(created.statusCode).toBe(201);
    const { token, apiToken } = created.json();
    expect(token).toMatch(/^mas_[0-9a-f]{32}_[A-Za-z0-9_-]{43}$/);
    expect(apiToken).toEqual({ id: expect.stringMatching(UUID), name: 'CI script', prefix: token.slice(0, 12), createdAt: expect.stringMatching(ISO_MS), lastUsedAt: null });

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
});
