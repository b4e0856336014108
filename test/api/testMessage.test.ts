import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signWebhookBody } from '../../src/http/platformWebhooks/webhookSignature.js';
import { exampleQuestion } from '../../web/dashboard/src/lib/exampleQuestion.js';
import { signUp } from '../support/api.js';
import { startFakePlatform, type FakePlatform } from '../support/fakePlatform.js';
import { startTestServer, type TestServer } from '../support/testServer.js';

/**
 * POST /api/integrations/:id/test-message: a newcomer's first message, signed server-side and sent through the
 * real webhook path; and the sandbox that delivers the answer when the integration has no platform apiUrl.
 */

const SECRET = 'whsec_test_message_0123456789abcdef';
const KB = 'We ship to Norway, Sweden and Denmark within 3 business days.';

let server: TestServer;
let platform: FakePlatform;
let acme: Awaited<ReturnType<typeof signUp>>;
let agentId: string;
let sandboxId: number;

async function integration(co: typeof acme, body: Record<string, unknown>) {
  const res = await co.call('POST', '/api/integrations', { name: 'Try-out', connectorType: 'msgplatform', webhookSecret: SECRET, agentId, ...body });
  expect(res.statusCode).toBe(201);
  return res.json().integration as { id: number; sandbox: boolean };
}

const logsOf = async (co: typeof acme, id: number) => (await co.call('GET', `/api/webhook-logs?integrationId=${id}`)).json().logs as Array<Record<string, unknown>>;
const conversation = async (co: typeof acme, id: string) => (await co.call('GET', `/api/conversations/${id}`)).json();
const agentMessage = async (co: typeof acme, id: string) =>
  ((await conversation(co, id)).messages as Array<{ author: string; delivery: string; deliveredTo: string | null; deliveryError: string | null; text: string }>).find((m) => m.author === 'agent');

beforeAll(async () => {
  platform = await startFakePlatform({ token: 'right-token' });
  server = await startTestServer({ ALLOW_PRIVATE_PLATFORM_URLS: 'true', REPLY_BURST_WINDOW_MS: '0', SEND_MAX_ATTEMPTS: '1' });
  acme = await signUp(server, 'Acme');
  const agent = await acme.call('POST', '/api/agents', { name: 'Ava', handoffMessage: 'A colleague will answer.' });
  expect(agent.statusCode).toBe(201);
  agentId = agent.json().agent.id;
  expect((await acme.call('POST', '/api/knowledge-base/documents', { title: 'Shipping', content: KB })).statusCode).toBe(201);
  sandboxId = (await integration(acme, {})).id;
});

afterAll(async () => {
  await server?.close();
  await platform?.close();
});

describe('the sandbox: an msgplatform integration without apiUrl', () => {
  it('is marked sandbox in the integration object; one with an apiUrl is not', async () => {
    expect((await acme.call('GET', `/api/integrations/${sandboxId}`)).json().integration.sandbox).toBe(true);
    expect((await integration(acme, { name: 'Real', apiUrl: platform.url, apiToken: 'right-token' })).sandbox).toBe(false);
  });
});

describe('POST /api/integrations/:id/test-message', () => {
  it('sends the message through the webhook: 202 with the conversation id; the agent answers and the answer is delivered to the sandbox', async () => {
    const res = await acme.call('POST', `/api/integrations/${sandboxId}/test-message`, { text: 'Do you ship to Norway?' });
    expect(res.statusCode).toBe(202);
    const { conversationId } = res.json();
    expect(conversationId).toMatch(/^[0-9a-f-]{36}$/);
    // Visible at once: the route waits for the read models.
    const detail = await conversation(acme, conversationId);
    expect(detail.conversation.integrationId).toBe(sandboxId);
    expect(detail.messages[0]).toMatchObject({ author: 'customer', text: 'Do you ship to Norway?' });
    await expect.poll(async () => (await agentMessage(acme, conversationId))?.delivery, { timeout: 10_000 }).toBe('sent');
    expect(await agentMessage(acme, conversationId)).toMatchObject({ text: expect.stringContaining('We ship to Norway'), deliveredTo: 'sandbox', deliveryError: null });
    const events = (await acme.call('GET', `/api/conversations/${conversationId}/events`)).json().events as Array<{ type: string; data: Record<string, unknown> }>;
    expect(events.find((e) => e.type === 'MessageDelivered')?.data).toMatchObject({ deliveredTo: 'sandbox', platformMessageId: null });
    expect(events.map((e) => e.type)).not.toContain('MessageDeliveryFailed');
  });

  it('leaves a normal webhook log entry (processed, message, 200), and a second click is a new test customer in a new conversation', async () => {
    const before = (await logsOf(acme, sandboxId)).length;
    const first = (await acme.call('POST', `/api/integrations/${sandboxId}/test-message`, { text: 'hello' })).json();
    const second = (await acme.call('POST', `/api/integrations/${sandboxId}/test-message`, { text: 'hello' })).json();
    expect(second.conversationId).not.toBe(first.conversationId);
    await expect.poll(async () => (await logsOf(acme, sandboxId)).length, { timeout: 5000 }).toBe(before + 2);
    const logs = await logsOf(acme, sandboxId);
    expect(logs.slice(0, 2)).toEqual([
      expect.objectContaining({ integrationId: sandboxId, httpStatus: 200, outcome: 'processed', kind: 'message' }),
      expect.objectContaining({ integrationId: sandboxId, httpStatus: 200, outcome: 'processed', kind: 'message' }),
    ]);
    for (const { conversationId } of [first, second]) {
      const detail = await conversation(acme, conversationId);
      expect(detail.messages.filter((m: { author: string }) => m.author === 'customer').map((m: { text: string }) => m.text)).toEqual(['hello']);
    }
    const [a, b] = await Promise.all([conversation(acme, first.conversationId), conversation(acme, second.conversationId)]);
    expect(a.conversation.customer.clientId).not.toBe(b.conversation.customer.clientId);
  });

  it('given a test conversation handed off to a human (paused), when the next test message is sent, then it is answered in a new conversation', async () => {
    const first = (await acme.call('POST', `/api/integrations/${sandboxId}/test-message`, { text: 'Do you ship to Norway?' })).json();
    await expect.poll(async () => (await agentMessage(acme, first.conversationId))?.delivery, { timeout: 10_000 }).toBe('sent');
    expect((await acme.call('POST', `/api/conversations/${first.conversationId}/pause`)).statusCode).toBeLessThan(300);
    expect((await conversation(acme, first.conversationId)).conversation.session.state).toBe('paused');
    const next = (await acme.call('POST', `/api/integrations/${sandboxId}/test-message`, { text: 'Do you ship to Norway?' })).json();
    expect(next.conversationId).not.toBe(first.conversationId);
    await expect.poll(async () => (await agentMessage(acme, next.conversationId))?.text, { timeout: 10_000 }).toContain('We ship to Norway');
  });

  it("given the quick start's document, when the dashboard's example question (drawn from its title) is sent, then the builtin agent answers it", async () => {
    const title = (await acme.call('GET', '/api/knowledge-base/documents?limit=1')).json().documents[0].title;
    const example = exampleQuestion(title);
    expect(example).toBe('What about shipping?');
    const { conversationId } = (await acme.call('POST', `/api/integrations/${sandboxId}/test-message`, { text: example })).json();
    await expect.poll(async () => (await agentMessage(acme, conversationId))?.text, { timeout: 10_000 }).toBe(KB);
    expect((await conversation(acme, conversationId)).conversation.handoff).toBeNull();
  });

  it("tenant isolation: another company's integration is 404, and nothing reaches its webhook", async () => {
    const other = await signUp(server, 'Other');
    const before = (await logsOf(acme, sandboxId)).length;
    const res = await other.call('POST', `/api/integrations/${sandboxId}/test-message`, { text: 'hi' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: { code: 'NOT_FOUND', message: expect.any(String) } });
    expect((await other.call('POST', '/api/integrations/999999/test-message', { text: 'hi' })).statusCode).toBe(404);
    expect((await logsOf(acme, sandboxId)).length).toBe(before);
  });

  it.each([
    ['empty', { text: '' }],
    ['blank', { text: '   ' }],
    ['oversized', { text: 'x'.repeat(4001) }],
    ['missing', {}],
    ['not a string', { text: 42 }],
  ])('%s text: 400 VALIDATION_ERROR naming the field, nothing sent', async (_what, body) => {
    const before = (await logsOf(acme, sandboxId)).length;
    const res = await acme.call('POST', `/api/integrations/${sandboxId}/test-message`, body);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: { code: 'VALIDATION_ERROR', message: expect.stringContaining('text') } });
    expect((await logsOf(acme, sandboxId)).length).toBe(before);
  });

  it('is in the OpenAPI document with its body and answers', async () => {
    const doc = (await server.app.inject({ method: 'GET', url: '/docs/json' })).json();
    const op = doc.paths['/api/integrations/{id}/test-message']?.post;
    expect(op).toBeDefined();
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['202', '400', '404', '409']));
    expect(JSON.stringify(op.requestBody)).toContain('"text"');
  });

  it('needs a bearer token', async () => {
    const res = await server.app.inject({ method: 'POST', url: `/api/integrations/${sandboxId}/test-message`, payload: { text: 'hi' } });
    expect(res.statusCode).toBe(401);
  });

  it('an integration without a webhook secret: 409 saying so', async () => {
    const { id } = await integration(acme, { webhookSecret: null });
    const res = await acme.call('POST', `/api/integrations/${id}/test-message`, { text: 'hi' });
    expect(res.statusCode).toBe(409);
    expect(res.json().error.code).toBe('WEBHOOK_SECRET_NOT_CONFIGURED');
  });

  it('an inactive integration: the real webhook refuses it (409 INTEGRATION_INACTIVE) and logs the rejection', async () => {
    const { id } = await integration(acme, { active: false });
    const res = await acme.call('POST', `/api/integrations/${id}/test-message`, { text: 'hi' });
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toEqual({ code: 'INTEGRATION_INACTIVE', message: 'The webhook refused the test message: This integration is not active' });
    await expect.poll(async () => (await logsOf(acme, id))[0], { timeout: 5000 }).toMatchObject({ httpStatus: 403, outcome: 'rejected' });
  });

  it('a webchat integration: 400 not_supported', async () => {
    const res = await acme.call('POST', '/api/integrations', { name: 'Chat', connectorType: 'webchat', allowedOrigins: ['https://shop.example.com'] });
    const res2 = await acme.call('POST', `/api/integrations/${res.json().integration.id}/test-message`, { text: 'hi' });
    expect(res2.statusCode).toBe(400);
    expect(res2.json().error.code).toBe('not_supported');
  });

  it('works with a company API token too (what `npm run send-test-message` uses)', async () => {
    const created = await acme.call('POST', '/api/settings/api-tokens', { name: 'cli' });
    const res = await acme.call('POST', `/api/integrations/${sandboxId}/test-message`, { text: 'from a script' }, created.json().token);
    expect(res.statusCode).toBe(202);
  });
});

describe('readable delivery failures', () => {
  it('a platform answering 401: the message shows "platform answered 401 Unauthorized"', async () => {
    const { id } = await integration(acme, { name: 'Wrong token', apiUrl: platform.url, apiToken: 'wrong-token' });
    const { conversationId } = (await acme.call('POST', `/api/integrations/${id}/test-message`, { text: 'Do you ship to Norway?' })).json();
    await expect.poll(async () => (await agentMessage(acme, conversationId))?.delivery, { timeout: 10_000 }).toBe('failed');
    expect((await agentMessage(acme, conversationId))?.deliveryError).toBe('platform answered 401 Unauthorized to POST /v1/messages');
  });

  it('a loopback apiUrl refused by the SSRF guard names ALLOW_PRIVATE_PLATFORM_URLS', async () => {
    const strict = await startTestServer();
    try {
      const co = await signUp(strict, 'Strict');
      const res = await co.call('POST', '/api/integrations', { name: 'Local', connectorType: 'msgplatform', apiUrl: 'http://127.0.0.1:4000' });
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toEqual({ code: 'VALIDATION_ERROR', message: expect.stringContaining('ALLOW_PRIVATE_PLATFORM_URLS=true') });
    } finally {
      await strict.close();
    }
  });
});

describe('in production (HTTPS required for webhooks)', () => {
  it('the test message still goes through the webhook in-process, while a plain-HTTP webhook from outside is refused', async () => {
    const prod = await startTestServer({ NODE_ENV: 'production', PROCESSOR_THREAD: 'false', REPLY_BURST_WINDOW_MS: '0' });
    try {
      const co = await signUp(prod, 'Prod');
      const res = await co.call('POST', '/api/integrations', { name: 'P', connectorType: 'msgplatform', webhookSecret: SECRET });
      const id = res.json().integration.id;
      expect((await co.call('POST', `/api/integrations/${id}/test-message`, { text: 'hi' })).statusCode).toBe(202);
      const body = JSON.stringify({ text: 'x', client_id: 1, channel_id: 1, transport: 't' });
      const direct = await prod.app.inject({
        method: 'POST',
        url: `/api/webhook/msgplatform/${id}`,
        payload: body,
        headers: { 'content-type': 'application/json', 'x-webhook-signature': signWebhookBody(body, SECRET), 'x-mas-in-process': 'guess' },
      });
      expect(direct.statusCode).toBe(403);
      expect(direct.json().error.code).toBe('HTTPS_REQUIRED');
    } finally {
      await prod.close();
    }
  });
});
