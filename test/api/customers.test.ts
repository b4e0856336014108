import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signWebhookBody } from '../../src/http/platformWebhooks/webhookSignature.js';
import { acmeAndGlobex, type Company } from '../support/api.js';
import { startTestServer, type TestServer } from '../support/testServer.js';

const SECRET = 'whsec_0123456789abcdef0123';
let server: TestServer;
let acme: Company;
let globex: Company;
let integrationId: number;

beforeAll(async () => {
  server = await startTestServer();
  ({ acme, globex } = await acmeAndGlobex(server));
  const created = await acme.call('POST', '/api/integrations', { name: 'Main', connectorType: 'msgplatform', webhookSecret: SECRET });
  expect(created.statusCode).toBe(201);
  integrationId = created.json().integration.id;
});
afterAll(async () => {
  await server?.close();
});

let n = 0;
async function webhook(body: Record<string, unknown>) {
  const payload = JSON.stringify({ message_id: `m-${n++}`, channel_id: 42, transport: 'whatsapp', text: 'Hello', ...body });
  const res = await server.app.inject({
    method: 'POST',
    url: `/api/webhook/msgplatform/${integrationId}`,
    payload,
    headers: { 'content-type': 'application/json', 'x-webhook-signature': signWebhookBody(payload, SECRET) },
  });
  expect(res.statusCode).toBe(200);
}

async function eventually<T>(read: () => Promise<T>, ok: (value: T) => boolean, what: string): Promise<T> {
  const until = Date.now() + 5000;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function conversationOf(clientId: string) {
  const list = await eventually(
    async () => (await acme.call('GET', '/api/conversations?limit=200')).json().conversations as { id: string; customer: { clientId: string }; customerId: string }[],
    (cs) => cs.some((c) => c.customer.clientId === clientId),
    `the conversation of ${clientId}`,
  );
  return list.find((c) => c.customer.clientId === clientId)!;
}

const profileEvents = async (customerId: string) =>
  (await server.adapters.eventStore.readStream(`customer-${customerId}`)).filter((e) => e.type === 'CustomerProfileUpdated');

describe('customer profile from the channel', () => {
  it('a message with client details makes a customer the conversation names by customerId', async () => {
    await webhook({ client_id: 'ada', client: { id: 'ada', name: 'Ada Lovelace', phone: '+47 555 0100', email: 'ada@example.com' } });
    const conversation = await conversationOf('ada');
    expect(conversation.customerId).toMatch(/^[0-9a-f-]{36}$/);
    // The profile is kept by a reactor from the conversation's events: its details may land one update after the customer.
    const res = await eventually(
      () => acme.call('GET', `/api/customers/${conversation.customerId}`),
      (r) => r.statusCode === 200 && r.json().customer.email !== null,
      'the customer with the details of the message',
    );
    expect(res.json().customer).toMatchObject({
      id: conversation.customerId,
      integrationId,
      clientId: 'ada',
      channelId: 42,
      transport: 'whatsapp',
      name: 'Ada Lovelace',
      phone: '+47 555 0100',
      email: 'ada@example.com',
      note: '',
      tags: [],
    });
    const detail = await acme.call('GET', `/api/conversations/${conversation.id}`);
    expect(detail.json().conversation.customerId).toBe(conversation.customerId);
  });

  it('repeated messages with the same details add no event; a changed phone adds one', async () => {
    const client = { id: 'bob', name: 'Bob', phone: '111' };
    for (let i = 0; i < 4; i++) await webhook({ client_id: 'bob', client });
    await webhook({ client_id: 'bob', client: { ...client, phone: '222' } });
    const { customerId } = await conversationOf('bob');
    await eventually(() => acme.call('GET', `/api/customers/${customerId}`), (r) => r.statusCode === 200 && r.json().customer.phone === '222', 'the new phone');
    const events = await profileEvents(customerId);
    expect(events.map((e) => (e.data as { changes: unknown }).changes)).toEqual([
      { name: 'Bob', transport: 'whatsapp', channelId: 42 },
      { phone: '111' },
      { phone: '222' },
    ]);
  });
});

describe('notes and tags', () => {
  let customerId: string;
  beforeAll(async () => {
    await webhook({ client_id: 'cleo', client: { name: 'Cleo' } });
    customerId = (await conversationOf('cleo')).customerId;
    await eventually(() => acme.call('GET', `/api/customers/${customerId}`), (r) => r.statusCode === 200, 'the customer');
  });

  it('PUT note stores the trimmed note with who and when', async () => {
    const res = await acme.call('PUT', `/api/customers/${customerId}/note`, { note: '  Prefers email.  ' });
    expect(res.statusCode).toBe(200);
    expect(res.json().customer).toMatchObject({ note: 'Prefers email.', noteUpdatedBy: `user:${acme.user.id}` });
    expect(res.json().customer.noteUpdatedAt).toMatch(/Z$/);
    expect((await acme.call('GET', `/api/customers/${customerId}`)).json().customer.note).toBe('Prefers email.');
  });

  it('PUT tags normalises them', async () => {
    const res = await acme.call('PUT', `/api/customers/${customerId}/tags`, { tags: [' VIP', 'vip ', 'Returns  Often'] });
    expect(res.statusCode).toBe(200);
    expect(res.json().customer.tags).toEqual(['vip', 'returns often']);
  });

  it('bad notes and tags are 400 VALIDATION_ERROR naming the field, and change nothing', async () => {
    const cases: [string, unknown][] = [
      ['note', { note: 'x'.repeat(4001) }],
      ['note', { note: 42 }],
      ['note', {}],
      ['tags', { tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }],
      ['tags', { tags: ['y'.repeat(41)] }],
      ['tags', { tags: 'vip' }],
    ];
    for (const [field, body] of cases) {
      const res = await acme.call('PUT', `/api/customers/${customerId}/${field}`, body);
      expect(res.statusCode, JSON.stringify(body).slice(0, 60)).toBe(400);
      expect(res.json().error.code).toBe('VALIDATION_ERROR');
      expect(res.json().error.message).toMatch(/note|tags/);
    }
    expect((await acme.call('GET', `/api/customers/${customerId}`)).json().customer).toMatchObject({ note: 'Prefers email.', tags: ['vip', 'returns often'] });
  });

  it("another company's customer is 404 on every route, and nothing changes", async () => {
    for (const [method, url, body] of [
      ['GET', `/api/customers/${customerId}`, undefined],
      ['PUT', `/api/customers/${customerId}/note`, { note: 'hijack' }],
      ['PUT', `/api/customers/${customerId}/tags`, { tags: ['x'] }],
      ['GET', `/api/customers/${customerId}/conversations`, undefined],
    ] as const) {
      const res = await globex.call(method, url, body);
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json().error.code).toBe('NOT_FOUND');
    }
    expect((await acme.call('GET', `/api/customers/${customerId}`)).json().customer.note).toBe('Prefers email.');
  });

  it('an unknown or malformed id is 404', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', 'nope']) {
      expect((await acme.call('GET', `/api/customers/${id}`)).statusCode).toBe(404);
    }
  });
});

describe("a customer's conversations", () => {
  it('lists them, paginated, newest activity first; a foreign cursor is 400', async () => {
    await webhook({ client_id: 'dora', client: { name: 'Dora' } });
    const conversation = await conversationOf('dora');
    const res = await eventually(
      () => acme.call('GET', `/api/customers/${conversation.customerId}/conversations?limit=1`),
      (r) => r.statusCode === 200 && r.json().conversations.length === 1,
      'the list',
    );
    expect(res.json()).toMatchObject({ conversations: [{ id: conversation.id, integrationId, connectorType: 'msgplatform', transport: 'whatsapp', messageCount: 1 }], nextCursor: null });
    const bad = await acme.call('GET', `/api/customers/${conversation.customerId}/conversations?cursor=garbage`);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.code).toBe('VALIDATION_ERROR');
  });
});
