import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, type Company } from '../support/api.js';
import { startTestServer, type TestServer } from '../support/testServer.js';

/**
 * Attacks on outbound webhook endpoints (docs/api/outbound-webhooks.md): concurrent creates and rotations, the
 * largest inputs, malformed URLs and event type filters. Given a company, when requests race or are malformed,
 * then the limits and the outbound guard still hold.
 */

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ NODE_ENV: 'production' });
});
afterAll(async () => server?.close());

const create = (co: Company, body: Record<string, unknown>) => co.call('POST', '/api/webhook-endpoints', { url: 'https://crm.example.com/hooks', eventTypes: ['message.answered'], ...body });

describe('attack: webhook endpoints', () => {
  it('given no endpoint, when 25 are created at once, then exactly 20 exist and the others are 409 QUOTA_EXCEEDED', async () => {
    const co = await signUp(server, 'Race Co');
    const results = await Promise.all(Array.from({ length: 25 }, (_, i) => create(co, { description: `n${i}` })));
    expect(results.filter((r) => r.statusCode === 201)).toHaveLength(20);
    const refused = results.filter((r) => r.statusCode !== 201);
    expect(refused.map((r) => [r.statusCode, r.json().error.code])).toEqual(Array(5).fill([409, 'QUOTA_EXCEEDED']));
    const first = await co.call('GET', '/api/webhook-endpoints?limit=15');
    const second = await co.call('GET', `/api/webhook-endpoints?limit=15&cursor=${encodeURIComponent(first.json().nextCursor)}`);
    expect(first.json().endpoints.length + second.json().endpoints.length).toBe(20);
  });

  it('when the secret is rotated twice at once, then both answers hold a new secret, different, and the endpoint says until when the earlier ones sign', async () => {
    const co = await signUp(server, 'Rotate Co');
    const created = create(co, {});
    const { endpoint, secret } = (await created).json();
    const [a, b] = (await Promise.all([0, 1].map(() => co.call('POST', `/api/webhook-endpoints/${endpoint.id}/rotate-secret`)))) as [Awaited<ReturnType<Company['call']>>, Awaited<ReturnType<Company['call']>>];
    expect([a.statusCode, b.statusCode]).toEqual([200, 200]);
    expect(new Set([secret, a.json().secret, b.json().secret]).size).toBe(3);
    const got = (await co.call('GET', `/api/webhook-endpoints/${endpoint.id}`)).json().endpoint;
    expect(Date.parse(got.previousSecretValidUntil) - Date.now()).toBeGreaterThan(23 * 3600_000);
    expect(JSON.stringify(got)).not.toContain(a.json().secret.slice(6, 20));
  });

  it('the longest URL and description are taken; one character more, userinfo, other schemes and local names are 400', async () => {
    const co = await signUp(server, 'Url Co');
    const longUrl = `https://crm.example.com/${'p'.repeat(2048 - 'https://crm.example.com/'.length)}`;
    expect((await create(co, { url: longUrl, description: 'd'.repeat(500) })).statusCode).toBe(201);
    for (const body of [
      { url: `${longUrl}p` },
      { description: 'd'.repeat(501) },
      { url: 'https://user:pass@crm.example.com/hooks' },
      { url: 'https://token@crm.example.com/hooks' },
      { url: 'ftp://crm.example.com/hooks' },
      { url: 'javascript:alert(1)' },
      { url: 'file:///etc/passwd' },
      { url: 'https://localhost/hooks' },
      { url: 'https://[::1]/hooks' },
      { url: 'https://0x7f000001/hooks' },
      { url: '/relative/hooks' },
    ]) {
      const res = await create(co, body);
      expect(res.statusCode, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.json().error.code).toBe('VALIDATION_ERROR');
      expect(res.body).not.toContain('pass@');
    }
  });

  it('an internationalised host is taken; its punycode name is the one connected to', async () => {
    const co = await signUp(server, 'Idn Co');
    const res = await create(co, { url: 'https://bücher.example/hooks' });
    expect(res.statusCode).toBe(201);
    expect(new URL(res.json().endpoint.url).hostname).toBe('xn--bcher-kva.example');
  });

  it('event type filters: an unknown type is 400, a type listed twice is kept once on create and on update, "*" takes all', async () => {
    const co = await signUp(server, 'Types Co');
    expect((await create(co, { eventTypes: ['message.answered', 'message.deleted'] })).statusCode).toBe(400);
    expect((await create(co, { eventTypes: [] })).statusCode).toBe(400);
    expect((await create(co, { eventTypes: Array(51).fill('message.answered') })).statusCode).toBe(400);
    const made = await create(co, { eventTypes: Array(50).fill('message.answered') });
    expect(made.statusCode).toBe(201);
    expect(made.json().endpoint.eventTypes).toEqual(['message.answered']);
    const id = made.json().endpoint.id;
    const patched = await co.call('PATCH', `/api/webhook-endpoints/${id}`, { eventTypes: ['conversation.closed', 'conversation.closed', '*'] });
    expect(patched.statusCode).toBe(200);
    expect(patched.json().endpoint.eventTypes).toEqual(['conversation.closed', '*']);
  });
});
