/**
 * The customer's export (GDPR right of access; docs/erasure.md): a customer with a distinctive string in each
 * place the service holds about them (profile, note, tags, messages both ways, an internal note, a CSAT comment,
 * an action call's arguments and result, a closing note) gets every one of them back in one JSON document;
 * the export is audited (`CustomerExported`, who and when, no personal data); agents get 403, other companies
 * and unknown customers 404; once erased, the export says so and holds none of it.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signWebhookBody } from '../../src/http/platformWebhooks/webhookSignature.js';
import { acmeAndGlobex, type Company } from '../support/api.js';
import { startTestServer, uniqueEmail, type TestServer } from '../support/testServer.js';

const SECRET = 'whsec_0123456789abcdef0123';
const S = {
  inbound: 'Gargantuan-Pelican-7781 where is my parcel',
  operator: 'Luminous-Tapir-2210 it ships tomorrow',
  aiReply: 'Velvet-Narwhal-6402 I can help with that',
  internal: 'Sardonic-Lemur-3390 internal only',
  csat: 'Crimson-Axolotl-5521 great service',
  argument: 'Order-Quokka-8812',
  result: 'Shipped-Wombat-4407 on its way',
  resolution: 'Resolved-Ibex-1156 parcel found',
  name: 'Philippa Quorndon',
  email: 'philippa.quorndon@example.org',
  phone: '+47 555 123 987',
  note: 'Likes-Tangerine-Deliveries',
  tag: 'quorndon-gold',
  clientId: 'client-quorndon-7719',
};
let server: TestServer;
let acme: Company;
let globex: Company;
let customerId: string;
let conversationId: string;

async function eventually<T>(read: () => Promise<T>, ok: (value: T) => boolean, what: string): Promise<T> {
  const until = Date.now() + 15_000;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Appends to the conversation's stream what the AI side would have recorded (a reply, a rating, an action call). */
async function appendToConversation(events: { type: string; data: Record<string, unknown> }[]) {
  const stream = `conversation-${conversationId}`;
  const revision = BigInt((await server.adapters.eventStore.readStream(stream)).length - 1);
  await server.adapters.eventStore.append(stream, events.map((e) => ({ id: randomUUID(), ...e })), revision);
}

beforeAll(async () => {
  server = await startTestServer();
  ({ acme, globex } = await acmeAndGlobex(server));
  const created = await acme.call('POST', '/api/integrations', { name: 'Main', connectorType: 'msgplatform', webhookSecret: SECRET });
  expect(created.statusCode).toBe(201);
  const integrationId = created.json().integration.id as number;
  const client = { id: S.clientId, name: S.name, phone: S.phone, email: S.email };
  const payload = JSON.stringify({ message_id: 'm-export-1', channel_id: 42, transport: 'whatsapp', client_id: S.clientId, client, text: S.inbound });
  const hook = await server.app.inject({
    method: 'POST',
    url: `/api/webhook/msgplatform/${integrationId}`,
    payload,
    headers: { 'content-type': 'application/json', 'x-webhook-signature': signWebhookBody(payload, SECRET) },
  });
  expect(hook.statusCode).toBe(200);
  type Listed = { id: string; customerId: string };
  const listed = await eventually(async () => (await acme.call('GET', '/api/conversations?limit=50')).json().conversations as Listed[], (l) => l.length === 1, 'the conversation');
  ({ id: conversationId, customerId } = listed[0]!);
  await eventually(() => acme.call('GET', `/api/customers/${customerId}`), (r) => r.statusCode === 200 && r.json().customer.email === S.email, 'the profile');
  expect((await acme.call('PUT', `/api/customers/${customerId}/note`, { note: S.note })).statusCode).toBe(200);
  expect((await acme.call('PUT', `/api/customers/${customerId}/tags`, { tags: [S.tag] })).statusCode).toBe(200);
  expect((await acme.call('POST', `/api/conversations/${conversationId}/messages`, { text: S.operator })).statusCode).toBe(202);
  expect((await acme.call('POST', `/api/conversations/${conversationId}/notes`, { text: S.internal })).statusCode).toBe(201);
  const at = new Date().toISOString();
  const callId = randomUUID();
  const replyId = randomUUID();
  const inbound = (await server.adapters.eventStore.readStream(`conversation-${conversationId}`)).find((e) => e.type === 'MessageReceived')!;
  await appendToConversation([
    { type: 'ActionCallRequested', data: { callId, replyId, actionId: randomUUID(), actionName: 'track_order', mode: 'auto', arguments: { orderId: S.argument }, at } },
    { type: 'ActionCallSucceeded', data: { callId, status: 200, durationMs: 12, response: S.result, mocked: false, at } },
    {
      type: 'AgentReplied',
      data: { messageId: replyId, sessionId: randomUUID(), agentId: null, text: S.aiReply, inReplyTo: [(inbound.data as { messageId: string }).messageId], model: 'test', inputTokens: 1, outputTokens: 1, handoff: false, at },
    },
  ]);
  expect((await acme.call('POST', `/api/conversations/${conversationId}/close`, { resolution: S.resolution })).statusCode).toBe(200);
  await appendToConversation([{ type: 'CsatSubmitted', data: { surveyId: randomUUID(), rating: 5, comment: S.csat, via: 'platform', agentId: null, teammateId: null, at } }]);
});
afterAll(async () => {
  await server?.close();
});

async function agentToken(): Promise<string> {
  const invited = await acme.call('POST', '/api/team/invitations', { email: uniqueEmail('agent'), role: 'agent' });
  const url = invited.json().invitationUrl as string;
  const token = url.slice(url.indexOf('#/accept-invitation/') + '#/accept-invitation/'.length);
  const accepted = await server.app.inject({ method: 'POST', url: '/api/auth/accept-invitation', payload: { token, name: 'Agent Al', password: 'agent password' } });
  return accepted.json().session.access_token as string;
}

const exportsRecorded = async () => (await server.adapters.eventStore.readStream(`customer-${customerId}`)).filter((e) => e.type === 'CustomerExported');

describe('GET /api/customers/:id/export', () => {
  it('holds every place the customer appears: profile, note, tags, messages both ways, internal notes, ratings, action calls, closing note', async () => {
    const res = await acme.call('GET', `/api/customers/${customerId}/export`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-disposition']).toBe(`attachment; filename="customer-${customerId}.json"`);
    const body = res.json().export;
    const text = JSON.stringify(body);
    for (const [what, value] of Object.entries(S)) expect(text, what).toContain(value);
    expect(body).toMatchObject({ customerId, erased: false, truncated: false, profile: { name: S.name, email: S.email, phone: S.phone, note: S.note, tags: [S.tag] } });
    const [conversation] = body.conversations;
    expect(conversation.conversationId).toBe(conversationId);
    type Message = { kind: string; direction: string; author: { kind: string }; text: string; at: string };
    const byText = (t: string) => (conversation.messages as Message[]).find((m) => m.text === t)!;
    expect(byText(S.inbound)).toMatchObject({ kind: 'message', direction: 'inbound', author: { kind: 'customer' } });
    expect(byText(S.operator)).toMatchObject({ kind: 'message', direction: 'outbound', author: { kind: 'teammate', by: expect.stringMatching(/^user:/) } });
    expect(byText(S.aiReply)).toMatchObject({ kind: 'message', direction: 'outbound', author: { kind: 'ai_agent' } });
    expect(byText(S.internal)).toMatchObject({ kind: 'internal_note', direction: 'internal', author: { kind: 'teammate' } });
    expect(conversation.ratings).toEqual([expect.objectContaining({ rating: 5, comment: S.csat })]);
    expect(conversation.actionCalls).toEqual([expect.objectContaining({ actionName: 'track_order', arguments: { orderId: S.argument }, outcome: 'succeeded', result: S.result, status: 200 })]);
    expect(conversation.resolutions).toEqual([expect.objectContaining({ resolution: S.resolution })]);
  });

  it('is audited: CustomerExported says who and when, and nothing about the customer', async () => {
    const before = (await exportsRecorded()).length;
    expect((await acme.call('GET', `/api/customers/${customerId}/export`)).statusCode).toBe(200);
    const recorded = await exportsRecorded();
    expect(recorded).toHaveLength(before + 1);
    const audit = recorded[recorded.length - 1]!;
    expect(Object.keys(audit.data as object).sort()).toEqual(['at', 'by']);
    expect((audit.data as { by: string }).by).toBe(`user:${acme.user.id}`);
    const plain = JSON.stringify({ data: audit.data, metadata: audit.metadata });
    for (const value of Object.values(S)) expect(plain).not.toContain(value);
  });

  it('an agent gets 403, another company and an unknown customer 404, and none of them is recorded', async () => {
    const before = (await exportsRecorded()).length;
    const asAgent = await acme.call('GET', `/api/customers/${customerId}/export`, undefined, await agentToken());
    expect(asAgent.statusCode).toBe(403);
    expect(asAgent.json().error.code).toBe('FORBIDDEN');
    const across = await globex.call('GET', `/api/customers/${customerId}/export`);
    expect(across.statusCode).toBe(404);
    expect(across.json().error.code).toBe('NOT_FOUND');
    expect((await acme.call('GET', `/api/customers/${randomUUID()}/export`)).statusCode).toBe(404);
    expect((await acme.call('GET', '/api/customers/not-a-uuid/export')).statusCode).toBe(404);
    expect(await exportsRecorded()).toHaveLength(before);
  });

  it('once the customer is erased, the export says so and holds no personal data (the export is still audited)', async () => {
    expect((await acme.call('DELETE', `/api/customers/${customerId}`, { reason: 'ticket 77' })).statusCode).toBe(202);
    await server.services.erasure!.sweep.idle();
    const before = (await exportsRecorded()).length;
    const res = await acme.call('GET', `/api/customers/${customerId}/export`);
    expect(res.statusCode).toBe(200);
    expect(res.json().export).toMatchObject({ customerId, erased: true, profile: null, conversations: [] });
    const text = JSON.stringify(res.json());
    for (const value of Object.values(S)) expect(text).not.toContain(value);
    expect(await exportsRecorded()).toHaveLength(before + 1);
  });

  it('is in the OpenAPI document, generated from the route schema', async () => {
    const doc = (await server.app.inject('/docs/json')).json();
    const op = doc.paths['/api/customers/{id}/export'].get;
    expect(op.description).toContain('GDPR right of access');
    expect(op.responses['200']).toBeDefined();
  });
});
