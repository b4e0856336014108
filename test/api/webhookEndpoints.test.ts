import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acmeAndGlobex, type Company } from '../support/api.js';
import { startTestServer, uniqueEmail, type TestServer } from '../support/testServer.js';

/** /api/webhook-endpoints: a company's outbound webhook endpoints, managed by owners and admins. */

let server: TestServer;
let acme: Company;
let globex: Company;

beforeAll(async () => {
  server = await startTestServer({ NODE_ENV: 'production' });
  ({ acme, globex } = await acmeAndGlobex(server));
});
afterAll(async () => {
  await server?.close();
});

const create = (co: Company, body: Record<string, unknown>) => co.call('POST', '/api/webhook-endpoints', { url: 'https://crm.example.com/hooks', eventTypes: ['message.answered'], ...body });

async function agentOf(owner: Company): Promise<string> {
  const invited = await owner.call('POST', '/api/team/invitations', { email: uniqueEmail('hooks-agent'), role: 'agent' });
  const url = invited.json().invitationUrl as string;
  const token = url.slice(url.indexOf('#/accept-invitation/') + '#/accept-invitation/'.length);
  const accepted = await server.app.inject({ method: 'POST', url: '/api/auth/accept-invitation', payload: { token, name: 'Agent', password: 'agent password' } });
  expect(accepted.statusCode).toBe(200);
  return accepted.json().session.access_token as string;
}

describe('webhook endpoints', () => {
  it('POST creates one and shows its whsec_ secret once; GET and the list never show it', async () => {
    const res = await create(acme, { description: 'CRM', eventTypes: ['message.answered', 'conversation.closed'] });
    expect(res.statusCode).toBe(201);
    const { endpoint, secret } = res.json();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(endpoint).toMatchObject({ url: 'https://crm.example.com/hooks', eventTypes: ['message.answered', 'conversation.closed'], active: true, description: 'CRM', disabled: null, previousSecretValidUntil: null });
    const got = await acme.call('GET', `/api/webhook-endpoints/${endpoint.id}`);
    expect(got.json().endpoint).toEqual(endpoint);
    const list = await acme.call('GET', '/api/webhook-endpoints');
    expect(list.json().endpoints).toEqual([endpoint]);
    expect(got.body + list.body).not.toContain(secret.slice(6, 20));
    // Nor does the stored event hold it in plain text.
    const stored = await server.adapters.eventStore.readAll({ filter: { eventTypes: ['WebhookEndpointCreated'] } });
    expect(JSON.stringify(stored.map((e) => e.data))).not.toContain(secret.slice(6, 20));
  });

  it('refuses what the outbound guard refuses (http in production, private addresses), unknown event types, and fields it does not know', async () => {
    for (const [body, field] of [
      [{ url: 'http://crm.example.com/hooks' }, 'url'],
      [{ url: 'https://127.0.0.1/hooks' }, 'url'],
      [{ url: 'https://[::1]/hooks' }, 'url'],
      [{ url: 'https://169.254.169.254/latest' }, 'url'],
      [{ eventTypes: ['message.deleted'] }, 'eventTypes'],
      [{ eventTypes: [] }, 'eventTypes'],
      [{ secret: 'mine' }, ''],
    ] as const) {
      const res = await create(acme, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error).toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringContaining(field) });
    }
  });

  it('PATCH changes it; DELETE removes it (then 404)', async () => {
    const { endpoint } = (await create(acme, {})).json();
    const patched = await acme.call('PATCH', `/api/webhook-endpoints/${endpoint.id}`, { active: false, eventTypes: ['*'] });
    expect(patched.statusCode).toBe(200);
    expect(patched.json().endpoint).toMatchObject({ active: false, eventTypes: ['*'] });
    expect((await acme.call('PATCH', `/api/webhook-endpoints/${endpoint.id}`, { url: 'http://10.0.0.1/x' })).statusCode).toBe(400);
    expect((await acme.call('DELETE', `/api/webhook-endpoints/${endpoint.id}`)).statusCode).toBe(204);
    expect((await acme.call('GET', `/api/webhook-endpoints/${endpoint.id}`)).statusCode).toBe(404);
  });

  it('rotating gives a new secret and keeps the old one signing for 24 hours', async () => {
    const { endpoint, secret } = (await create(acme, {})).json();
    const rotated = await acme.call('POST', `/api/webhook-endpoints/${endpoint.id}/rotate-secret`);
    expect(rotated.statusCode).toBe(200);
    expect(rotated.json().secret).toMatch(/^whsec_/);
    expect(rotated.json().secret).not.toBe(secret);
    const until = Date.parse(rotated.json().endpoint.previousSecretValidUntil);
    expect(until - Date.now()).toBeGreaterThan(23.9 * 3600_000);
    expect(until - Date.now()).toBeLessThanOrEqual(24 * 3600_000);
  });

  it('another company\'s endpoint is 404 on every route, and it is not in their list', async () => {
    const { endpoint } = (await create(acme, {})).json();
    for (const [method, url, body] of [
      ['GET', `/api/webhook-endpoints/${endpoint.id}`],
      ['PATCH', `/api/webhook-endpoints/${endpoint.id}`, { active: false }],
      ['DELETE', `/api/webhook-endpoints/${endpoint.id}`],
      ['POST', `/api/webhook-endpoints/${endpoint.id}/rotate-secret`],
      ['POST', `/api/webhook-endpoints/${endpoint.id}/replay`, { from: new Date().toISOString() }],
      ['GET', '/api/webhook-endpoints/not-a-uuid'],
    ] as const) {
      const res = await globex.call(method, url, body);
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json().error.code).toBe('NOT_FOUND');
    }
    expect((await globex.call('GET', '/api/webhook-endpoints')).json().endpoints).toEqual([]);
  });

  it('an agent reads endpoints but may not manage them (403)', async () => {
    const agent = await agentOf(acme);
    const { endpoint } = (await create(acme, {})).json();
    expect((await acme.call('GET', `/api/webhook-endpoints/${endpoint.id}`, undefined, agent)).statusCode).toBe(200);
    expect((await acme.call('POST', '/api/webhook-endpoints', { url: 'https://x.example.com', eventTypes: ['*'] }, agent)).statusCode).toBe(403);
    expect((await acme.call('PATCH', `/api/webhook-endpoints/${endpoint.id}`, { active: false }, agent)).statusCode).toBe(403);
    expect((await acme.call('POST', `/api/webhook-endpoints/${endpoint.id}/rotate-secret`, undefined, agent)).statusCode).toBe(403);
    expect((await acme.call('PUT', '/api/webhook-settings', { creditsLowThresholdMicros: 5 }, agent)).statusCode).toBe(403);
  });

  it('the credits.low threshold is $1 until the company sets one', async () => {
    expect((await globex.call('GET', '/api/webhook-settings')).json()).toEqual({ settings: { creditsLowThresholdMicros: 1_000_000 } });
    expect((await globex.call('PUT', '/api/webhook-settings', { creditsLowThresholdMicros: 2_500_000 })).json()).toEqual({ settings: { creditsLowThresholdMicros: 2_500_000 } });
    expect((await globex.call('GET', '/api/webhook-settings')).json().settings.creditsLowThresholdMicros).toBe(2_500_000);
  });
});
