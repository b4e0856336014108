import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, signUpWithIntegration } from '../support/api.js';
import { startFakePlatform, type FakePlatform } from '../support/fakePlatform.js';
import { startTestServer, type TestServer } from '../support/testServer.js';

/** /api/integrations (src/http/routes/integrations.ts); the webhook they receive is in webhooks.test.ts. */
const SECRET = 'whsec_0123456789abcdef0123';
let server: TestServer;
let platform: FakePlatform;
let acme: Awaited<ReturnType<typeof signUpWithIntegration>>;
let integrationId: number;

beforeAll(async () => {
  server = await startTestServer({ ALLOW_PRIVATE_PLATFORM_URLS: 'true' });
  platform = await startFakePlatform({ token: 'platform-token-1' });
  acme = await signUpWithIntegration(server, SECRET);
  integrationId = acme.integrationId;
});
afterAll(async () => {
  await server?.close();
  await platform?.close();
});

describe('integrations', () => {
  it('create → 201 with the API.md shape; secrets are write-only', async () => {
    const res = await acme.call('POST', '/api/integrations', {
      name: 'Shop',
      connectorType: 'msgplatform',
      apiUrl: platform.url,
      apiToken: 'platform-token-1',
      webhookSecret: SECRET,
    });
    expect(res.statusCode).toBe(201);
    const integration = res.json().integration;
    expect(integration).toEqual({
      id: expect.any(Number),
      name: 'Shop',
      connectorType: 'msgplatform',
      apiUrl: platform.url,
      active: true,
      agentId: null,
      hasWebhookSecret: true,
      hasApiToken: true,
      webhookUrl: `${server.services.config.publicBaseUrl}/api/webhook/msgplatform/${integration.id}`,
      webhookRegistered: false,
      webhookRegisteredAt: null,
      allowedOrigins: [],
      sandbox: false,
      greeting: null,
      csat: { enabled: false, skipWithoutCustomerReply: true },
      identityVerification: 'off',
      prechatForm: false,
      hasIdentitySecret: false,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const everything = JSON.stringify([(await acme.call('GET', '/api/integrations')).json(), (await acme.call('GET', `/api/integrations/${integration.id}`)).json()]);
    expect(everything).not.toContain(SECRET);
    expect(everything).not.toContain('platform-token-1');
    const events = JSON.stringify(await server.adapters.eventStore.readAll({}), (_k, v) => (typeof v === 'bigint' ? String(v) : v));
    expect(events).not.toContain(SECRET);
    expect(events).not.toContain('platform-token-1');
  });

  it('lists integrations with cursor pagination', async () => {
    const co = await signUp(server, 'Many');
    for (const name of ['i1', 'i2', 'i3']) await co.call('POST', '/api/integrations', { name, connectorType: 'msgplatform' });
    const first = (await co.call('GET', '/api/integrations?limit=2')).json();
    expect(first.integrations.map((i: any) => i.name)).toEqual(['i1', 'i2']);
    const rest = (await co.call('GET', `/api/integrations?limit=2&cursor=${encodeURIComponent(first.nextCursor)}`)).json();
    expect(rest).toEqual({ integrations: [expect.objectContaining({ name: 'i3' })], nextCursor: null });
  });

  it('integration ids come from a sequence', async () => {
    const a = (await acme.call('POST', '/api/integrations', { name: 'A', connectorType: 'msgplatform' })).json().integration.id;
    const b = (await acme.call('POST', '/api/integrations', { name: 'B', connectorType: 'msgplatform' })).json().integration.id;
    expect(b).toBe(a + 1);
  });

  it('register-webhook: 400 not_supported without apiUrl', async () => {
    const created = (await acme.call('POST', '/api/integrations', { name: 'No URL', connectorType: 'msgplatform' })).json().integration;
    const res = await acme.call('POST', `/api/integrations/${created.id}/register-webhook`);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('not_supported');
  });

  it('register-webhook creates then updates on the platform (idempotent), and the integration shows webhookRegistered', async () => {
    const created = (
      await acme.call('POST', '/api/integrations', { name: 'Reg', connectorType: 'msgplatform', apiUrl: platform.url, apiToken: 'platform-token-1', webhookSecret: SECRET })
    ).json().integration;
    const first = await acme.call('POST', `/api/integrations/${created.id}/register-webhook`);
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({ ok: true, webhookRegisteredAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/) });
    const second = await acme.call('POST', `/api/integrations/${created.id}/register-webhook`);
    expect(second.statusCode).toBe(200);
    const ours = platform.webhooks.filter((w: any) => w.url === created.webhookUrl);
    expect(ours).toHaveLength(1);
    expect(ours[0]!.events).toEqual(['inbox', 'outbox', 'close_dialog', 'close_request', 'dialog_transferred']);
    const after = (await acme.call('GET', `/api/integrations/${created.id}`)).json().integration;
    expect(after).toMatchObject({ webhookRegistered: true, webhookRegisteredAt: second.json().webhookRegisteredAt });
    const listed = (await acme.call('GET', '/api/integrations')).json().integrations.find((i: any) => i.id === created.id);
    expect(listed.webhookRegistered).toBe(true);
  });

  it('when only apiUrl moves to another host, then 400 VALIDATION_ERROR asks for the token again, and register-webhook never sends the stored token there', async () => {
    const elsewhere = await startFakePlatform({ token: 'platform-token-1' });
    try {
      const created = (
        await acme.call('POST', '/api/integrations', { name: 'Moving', connectorType: 'msgplatform', apiUrl: platform.url, apiToken: 'platform-token-1', webhookSecret: SECRET })
      ).json().integration;
      const moved = await acme.call('PATCH', `/api/integrations/${created.id}`, { apiUrl: elsewhere.url });
      expect(moved.statusCode).toBe(400);
      expect(moved.json().error).toEqual({ code: 'VALIDATION_ERROR', message: expect.stringMatching(/^apiToken: .*another host.*again/) });
      expect((await acme.call('GET', `/api/integrations/${created.id}`)).json().integration.apiUrl).toBe(platform.url);
      expect((await acme.call('POST', `/api/integrations/${created.id}/register-webhook`)).statusCode).toBe(200);
      expect(elsewhere.received).toEqual([]);

      // Given again with the address, the token goes to the new host.
      const again = await acme.call('PATCH', `/api/integrations/${created.id}`, { apiUrl: elsewhere.url, apiToken: 'platform-token-1' });
      expect(again.statusCode).toBe(200);
      expect((await acme.call('POST', `/api/integrations/${created.id}/register-webhook`)).statusCode).toBe(200);
      expect(elsewhere.received.length).toBeGreaterThan(0);
    } finally {
      await elsewhere.close();
    }
  });

  it('register-webhook: a platform refusal → 502 PLATFORM_ERROR, nothing recorded, no body echoed', async () => {
    const created = (
      await acme.call('POST', '/api/integrations', { name: 'Refused', connectorType: 'msgplatform', apiUrl: platform.url, apiToken: 'wrong-token', webhookSecret: SECRET })
    ).json().integration;
    const res = await acme.call('POST', `/api/integrations/${created.id}/register-webhook`);
    expect(res.statusCode).toBe(502);
    expect(res.json().error.code).toBe('PLATFORM_ERROR');
    expect(res.body).not.toContain('wrong-token');
    expect((await acme.call('GET', `/api/integrations/${created.id}`)).json().integration.webhookRegistered).toBe(false);
  });

  it('an apiUrl on a private address is refused unless ALLOW_PRIVATE_PLATFORM_URLS', async () => {
    const strict = await startTestServer();
    try {
      const co = await signUp(strict, 'Strict');
      const res = await co.call('POST', '/api/integrations', { name: 'Evil', connectorType: 'msgplatform', apiUrl: 'http://169.254.169.254/latest' });
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe('VALIDATION_ERROR');
      const loop = await co.call('POST', '/api/integrations', { name: 'Loop', connectorType: 'msgplatform', apiUrl: 'http://2130706433/' });
      expect(loop.statusCode).toBe(400);
    } finally {
      await strict.close();
    }
  });

  it("tenant isolation: company B gets 404 on company A's integration for every route", async () => {
    const b = await signUp(server, 'B');
    const id = integrationId;
    for (const [method, url, payload] of [
      ['GET', `/api/integrations/${id}`],
      ['PATCH', `/api/integrations/${id}`, { name: 'hijack' }],
      ['DELETE', `/api/integrations/${id}`],
      ['POST', `/api/integrations/${id}/register-webhook`],
    ] as const) {
      const res = await b.call(method, url, payload);
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json().error.code).toBe('NOT_FOUND');
    }
    expect((await b.call('GET', '/api/integrations')).json().integrations).toEqual([]);
    expect((await acme.call('GET', `/api/integrations/${id}`)).json().integration.name).toBe('Main');
  });
});
