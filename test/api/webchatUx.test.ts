import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp } from '../support/api.js';
import { startTestServer, type TestServer } from '../support/testServer.js';
import { connectWebchat, type WebchatClient } from '../support/webchatClient.js';
import { customerIdFor } from '../../src/domain/customers/decider.js';
import { generatedCustomerName } from '../../src/domain/customers/displayName.js';

/**
 * What a visitor of the web chat sees first: the integration's greeting (a validated, length-limited setting
 * sent in `ready`), and on a site the integration does not allow, a refusal the widget can tell apart from a
 * network failure (close code 4403), so it stops reconnecting.
 */

const ORIGIN = 'https://shop.example';
let server: TestServer;
let base: string;
const clients: WebchatClient[] = [];

beforeAll(async () => {
  server = await startTestServer({ WEBCHAT_NEW_VISITORS_PER_IP_PER_MINUTE: '1000', WEBCHAT_MAX_CONNECTIONS_PER_IP: '100' });
  base = await server.listen(0, '127.0.0.1');
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  await server?.close();
});

async function connect(integrationId: number, origin: string | null = ORIGIN) {
  const client = await connectWebchat(base, integrationId, { origin });
  clients.push(client);
  return client;
}

describe('greeting', () => {
  it('is stored trimmed, returned with the integration, and sent first in ready', async () => {
    const co = await signUp(server, 'Greeter');
    const created = await co.call('POST', '/api/integrations', {
      name: 'Chat',
      connectorType: 'webchat',
      allowedOrigins: [ORIGIN],
      greeting: '  Hi! How can we help?\nAsk about shipping.  ',
    });
    expect(created.statusCode).toBe(201);
    const id = created.json().integration.id as number;
    expect(created.json().integration.greeting).toBe('Hi! How can we help?\nAsk about shipping.');
    expect((await co.call('GET', `/api/integrations/${id}`)).json().integration.greeting).toBe('Hi! How can we help?\nAsk about shipping.');
    const listed = (await co.call('GET', '/api/integrations')).json().integrations.find((i: { id: number }) => i.id === id);
    expect(listed.greeting).toBe('Hi! How can we help?\nAsk about shipping.');

    const c = await connect(id);
    expect(await c.hello()).toMatchObject({ type: 'ready', greeting: 'Hi! How can we help?\nAsk about shipping.', history: [] });

    // Changed: the very next visitor sees the new one; cleared with "" (or null), ready says null.
    expect((await co.call('PATCH', `/api/integrations/${id}`, { greeting: 'Welcome back' })).json().integration.greeting).toBe('Welcome back');
    expect(await (await connect(id)).hello()).toMatchObject({ greeting: 'Welcome back' });
    expect((await co.call('PATCH', `/api/integrations/${id}`, { greeting: '' })).json().integration.greeting).toBeNull();
    expect(await (await connect(id)).hello()).toMatchObject({ greeting: null });
  });

  it('a webchat integration without one has greeting null', async () => {
    const co = await signUp(server, 'Plain');
    const created = await co.call('POST', '/api/integrations', { name: 'Chat', connectorType: 'webchat', allowedOrigins: [ORIGIN] });
    expect(created.json().integration.greeting).toBeNull();
  });

  it('refuses a greeting over 500 characters, with control characters, or on a msgplatform integration: 400, nothing changed', async () => {
    const co = await signUp(server, 'Strict');
    const ok = await co.call('POST', '/api/integrations', { name: 'Chat', connectorType: 'webchat', allowedOrigins: [ORIGIN], greeting: 'Hello' });
    const id = ok.json().integration.id as number;
    const refusals = [
      await co.call('POST', '/api/integrations', { name: 'Long', connectorType: 'webchat', greeting: 'x'.repeat(501) }),
      await co.call('PATCH', `/api/integrations/${id}`, { greeting: 'x'.repeat(501) }),
      await co.call('PATCH', `/api/integrations/${id}`, { greeting: 'Ding\u0007' }),
      await co.call('PATCH', `/api/integrations/${id}`, { greeting: 42 }),
      await co.call('POST', '/api/integrations', { name: 'Platform', connectorType: 'msgplatform', greeting: 'Hi' }),
    ];
    for (const r of refusals) {
      expect(r.statusCode).toBe(400);
      expect(r.json().error).toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringContaining('greeting') });
    }
    const platform = await co.call('POST', '/api/integrations', { name: 'Platform', connectorType: 'msgplatform' });
    const onPlatform = await co.call('PATCH', `/api/integrations/${platform.json().integration.id}`, { greeting: 'Hi' });
    expect(onPlatform.statusCode).toBe(400);
    expect(onPlatform.json().error.code).toBe('VALIDATION_ERROR');
    // Exactly 500 is fine; the refused ones left the greeting as it was.
    expect((await co.call('GET', `/api/integrations/${id}`)).json().integration.greeting).toBe('Hello');
    expect((await co.call('PATCH', `/api/integrations/${id}`, { greeting: 'y'.repeat(500) })).statusCode).toBe(200);
  });
});

describe('a site that is not allowed', () => {
  it('gets ORIGIN_NOT_ALLOWED and close code 4403 (not a retryable 1008/1006); an allowed origin is served', async () => {
    const co = await signUp(server, 'Origins');
    const created = await co.call('POST', '/api/integrations', { name: 'Chat', connectorType: 'webchat', allowedOrigins: [ORIGIN] });
    const id = created.json().integration.id as number;
    for (const origin of ['https://evil.example', 'http://shop.example', null]) {
      const c = await connect(id, origin);
      expect(await c.waitFor((f) => f.type === 'error')).toMatchObject({
        code: 'ORIGIN_NOT_ALLOWED',
        message: expect.stringContaining('not available on this site'),
      });
      expect(await c.closed).toEqual({ code: 4403, reason: 'ORIGIN_NOT_ALLOWED' });
    }
    const allowed = await connect(id);
    expect(await allowed.hello()).toMatchObject({ type: 'ready' });

    // Removing the origin while a visitor is connected: the next message is refused the same way.
    expect((await co.call('PATCH', `/api/integrations/${id}`, { allowedOrigins: ['https://elsewhere.example'] })).statusCode).toBe(200);
    allowed.send({ type: 'message', text: 'Hello?', clientMessageId: 'o-1' });
    expect(await allowed.waitFor((f) => f.type === 'error')).toMatchObject({ code: 'ORIGIN_NOT_ALLOWED' });
    expect((await allowed.closed).code).toBe(4403);
  });
});

describe('naming the customer', () => {
  it('a web chat visitor gets one generated name ("Amber Otter"), the same in the list, the conversation, search and the customer panel, never their raw id', async () => {
    const co = await signUp(server, 'Names');
    const created = await co.call('POST', '/api/integrations', { name: 'Chat', connectorType: 'webchat', allowedOrigins: [ORIGIN] });
    const integrationId = created.json().integration.id;
    const c = await connect(integrationId);
    const ready = await c.hello();
    expect(await c.message('Hello there zebracrossing', 'n-1')).toMatchObject({ type: 'ack' });
    const expected = generatedCustomerName(customerIdFor(integrationId, ready.visitorId));
    expect(expected).toMatch(/^[A-Z][a-z]+ [A-Z][a-z]+$/);
    // The ack says the message is stored; the dashboard's list is a projection that follows it.
    await expect.poll(async () => (await co.call('GET', '/api/conversations')).json().conversations.length, { timeout: 5000 }).toBe(1);
    const list = (await co.call('GET', '/api/conversations')).json().conversations;
    expect(list[0].customer).toMatchObject({ clientId: ready.visitorId, displayName: expected });
    const detail = (await co.call('GET', `/api/conversations/${ready.conversationId}`)).json().conversation;
    expect(detail.customer.displayName).toBe(expected);
    await expect
      .poll(async () => (await co.call('GET', '/api/search?q=zebracrossing')).json().results?.[0]?.customerName, { timeout: 5000 })
      .toBe(expected);
    await expect.poll(async () => (await co.call('GET', `/api/customers/${detail.customerId}`)).statusCode, { timeout: 5000 }).toBe(200);
    expect((await co.call('GET', `/api/customers/${detail.customerId}`)).json().customer).toMatchObject({ name: null, displayName: expected });
  });

  it('a visitor the page names (hello name, from data-visitor-name) is shown by that name; a later name renames them', async () => {
    const co = await signUp(server, 'Named');
    const created = await co.call('POST', '/api/integrations', { name: 'Chat', connectorType: 'webchat', allowedOrigins: [ORIGIN] });
    const id = created.json().integration.id as number;
    const c = await connect(id);
    const from = c.frames.length;
    c.send({ type: 'hello', name: '  Anna\nSmith ' });
    const ready = await c.waitFor((f) => f.type === 'ready', 10_000, from);
    await c.message('Hi, it is Anna', 'a-1');
    const named = async () => (await co.call('GET', `/api/conversations/${ready.conversationId}`)).json().conversation.customer;
    expect(await named()).toMatchObject({ name: 'Anna Smith', displayName: 'Anna Smith' });
    // Back as a signed-in shopper with another name.
    const again = await connect(id);
    const from2 = again.frames.length;
    again.send({ type: 'hello', visitorToken: ready.visitorToken, name: 'Anna S.' });
    await again.waitFor((f) => f.type === 'ready', 10_000, from2);
    await again.message('Me again', 'a-2');
    expect((await named()).displayName).toBe('Anna S.');
    // Too long or not a string: refused, the socket stays usable.
    const bad = await connect(id);
    bad.send({ type: 'hello', name: 'x'.repeat(81) });
    expect(await bad.waitFor((f) => f.type === 'error')).toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringContaining('name') });
  });
});

describe('the pre-chat form', () => {
  it('is off by default; switched on, ready asks for it, the answers are checked, kept on the customer profile and name the conversation', async () => {
    const co = await signUp(server, 'Prechat');
    const created = await co.call('POST', '/api/integrations', { name: 'Chat', connectorType: 'webchat', allowedOrigins: [ORIGIN] });
    const id = created.json().integration.id as number;
    expect(created.json().integration.prechatForm).toBe(false);
    // Off: ready does not ask, and answers sent anyway are refused (nothing stored).
    const off = await connect(id);
    expect(await off.hello()).toMatchObject({ type: 'ready', prechatForm: false });
    off.send({ type: 'profile', name: 'Mallory' });
    expect(await off.waitFor((f) => f.type === 'error' || f.type === 'profile_saved')).toMatchObject({ type: 'error', code: 'VALIDATION_ERROR' });

    const on = await co.call('PATCH', `/api/integrations/${id}`, { prechatForm: true });
    expect(on.json().integration.prechatForm).toBe(true);
    expect((await co.call('GET', '/api/integrations')).json().integrations.find((i: { id: number }) => i.id === id).prechatForm).toBe(true);
    const c = await connect(id);
    const ready = await c.hello();
    expect(ready).toMatchObject({ type: 'ready', prechatForm: true });
    const answer = async (frame: object) => {
      const from = c.frames.length;
      c.send({ type: 'profile', ...frame });
      return c.waitFor((f) => f.type === 'error' || f.type === 'profile_saved', 10_000, from);
    };
    expect(await answer({ email: 'not an email' })).toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringContaining('email') });
    expect(await answer({ name: 'x'.repeat(81) })).toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringContaining('name') });
    expect(await answer({ name: '   ', email: '' })).toMatchObject({ code: 'VALIDATION_ERROR', message: 'name or email is required' });
    expect(await answer({ name: '  Ingrid \n Berg ', email: ' ingrid@example.com ' })).toMatchObject({ type: 'profile_saved', name: 'Ingrid Berg', email: 'ingrid@example.com' });

    expect(await c.message('Where is my parcel?', 'p-1')).toMatchObject({ type: 'ack' });
    await expect.poll(async () => (await co.call('GET', `/api/conversations/${ready.conversationId}`)).json().conversation?.customer.displayName, { timeout: 5000 }).toBe('Ingrid Berg');
    const customerId = customerIdFor(id, ready.visitorId);
    await expect
      .poll(async () => (await co.call('GET', `/api/customers/${customerId}`)).json().customer, { timeout: 5000 })
      .toMatchObject({ name: 'Ingrid Berg', email: 'ingrid@example.com', displayName: 'Ingrid Berg' });
    // Another company cannot read that profile.
    const other = await signUp(server, 'Other');
    expect((await other.call('GET', `/api/customers/${customerId}`)).statusCode).toBe(404);
  });

  it('is a web chat setting: a messaging-platform integration refuses it, and it is a boolean (400)', async () => {
    const co = await signUp(server, 'PrechatPlatform');
    const created = await co.call('POST', '/api/integrations', { name: 'Platform', connectorType: 'msgplatform', prechatForm: true });
    expect(created.statusCode).toBe(400);
    expect(created.json().error).toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringContaining('prechatForm') });
    const platform = (await co.call('POST', '/api/integrations', { name: 'Platform', connectorType: 'msgplatform' })).json().integration.id as number;
    expect((await co.call('PATCH', `/api/integrations/${platform}`, { prechatForm: true })).statusCode).toBe(400);
    expect((await co.call('PATCH', `/api/integrations/${platform}`, { prechatForm: 'yes' })).statusCode).toBe(400);
  });
});
