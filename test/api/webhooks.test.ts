import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { signWebhookBody } from '../../src/http/platformWebhooks/webhookSignature.js';
import { signUp, signUpWithIntegration } from '../support/api.js';
import { startFakePlatform, type FakePlatform } from '../support/fakePlatform.js';
import { startTestServer, type TestServer } from '../support/testServer.js';

const SECRET = 'whsec_0123456789abcdef0123';
let server: TestServer;
let base: string;
let platform: FakePlatform;
let acme: Awaited<ReturnType<typeof signUpWithIntegration>>;
let integrationId: number;

beforeAll(async () => {
  server = await startTestServer({ ALLOW_PRIVATE_PLATFORM_URLS: 'true' });
  base = await server.listen(0, '127.0.0.1');
  platform = await startFakePlatform({ token: 'platform-token-1' });
  acme = await signUpWithIntegration(server, SECRET);
  integrationId = acme.integrationId;
});
afterAll(async () => {
  await server?.close();
  await platform?.close();
});

let n = 0;
const message = (over: Record<string, unknown> = {}) => ({ text: 'Hello, do you ship to Norway?', client_id: `c-${n++}`, channel_id: 42, transport: 'telegram', ...over });

async function post(body: string | Buffer, headers: Record<string, string> = {}, url = `/api/webhook/msgplatform/${integrationId}`) {
  const res = await fetch(base + url, { method: 'POST', body: typeof body === 'string' ? body : new Uint8Array(body), headers });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}
const signed = (payload: unknown, secret = SECRET, header = 'x-webhook-signature') => {
  const body = typeof payload === 'string' ? payload : JSON.stringify(payload);
  return { body, headers: { 'content-type': 'application/json', [header]: signWebhookBody(body, secret) } };
};
async function conversationEvents(clientId: string | number) {
  const all = await server.adapters.eventStore.readAll({ filter: { eventTypes: ['MessageReceived'] } });
  return all;
}
// Customer messages stored: the processing side appends replies and deliveries of earlier tests meanwhile, never these.
const headCount = async () => (await server.adapters.eventStore.readAll({ filter: { eventTypes: ['MessageReceived'] } })).length;

describe('GET /api/webhook/{connectorType}/{integrationId}', () => {
  it('answers 200 {ok:true, verified:true}', async () => {
    const res = await fetch(`${base}/api/webhook/msgplatform/${integrationId}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, verified: true });
  });

  it('answers 404 for an unknown connector or integration, like the POST', async () => {
    for (const url of ['/api/webhook/telegram/1', '/api/webhook/msgplatform/999999', '/api/webhook/msgplatform/x']) {
      const res = await fetch(base + url);
      expect(res.status, url).toBe(404);
      expect((await res.json()).error.code).toBe('NOT_FOUND');
    }
  });
});

describe('POST /api/webhook/msgplatform/{integrationId}', () => {
  it('a signed inbound message → 200 {ok:true}, stored once as a conversation message', async () => {
    const payload = message({ client_id: 'alice' });
    const { body, headers } = signed(payload);
    const res = await post(body, headers);
    expect(res).toEqual({ status: 200, body: { ok: true } });
    const received = (await conversationEvents('alice')).filter((e) => (e.data as any).text === payload.text);
    expect(received.length).toBeGreaterThanOrEqual(1);
  });

  it('accepts the x-hub-signature-256 header too', async () => {
    const { body, headers } = signed(message(), SECRET, 'x-hub-signature-256');
    expect((await post(body, headers)).status).toBe(200);
  });

  it('reads a missing content type as JSON', async () => {
    // A byte body: fetch adds no content type of its own.
    const body = Buffer.from(JSON.stringify(message()));
    expect((await post(body, { 'x-webhook-signature': signWebhookBody(body, SECRET) })).status).toBe(200);
  });

  const raw = JSON.stringify(message({ client_id: 'sig' }));
  const digest = createHmac('sha256', SECRET).update(raw).digest('hex');
  const wrongDigest = createHmac('sha256', SECRET).update(raw + ' ').digest('hex');
  const badSignatures: [string, Record<string, string>, string?][] = [
    ['missing', {}],
    ['empty', { 'x-webhook-signature': '' }],
    ['without sha256=', { 'x-webhook-signature': digest }],
    ['non-hex', { 'x-webhook-signature': `sha256=${'z'.repeat(64)}` }],
    ['truncated', { 'x-webhook-signature': `sha256=${digest.slice(0, 40)}` }],
    ['upper-case hex of a wrong digest', { 'x-webhook-signature': `sha256=${wrongDigest.toUpperCase()}` }],
    ['over another secret', { 'x-webhook-signature': signWebhookBody(raw, 'another-secret-entirely') }],
    ['a one-byte change to a signed body', { 'x-webhook-signature': `sha256=${digest}` }, raw.replace('sig', 'siG')],
  ];
  it.each(badSignatures)('signature %s → 401, nothing stored, no reply', async (_name, headers, bodyOverride) => {
    const before = await headCount();
    const res = await post(bodyOverride ?? raw, { 'content-type': 'application/json', ...headers });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toMatch(/^INVALID_SIGNATURE$/);
    expect(await headCount()).toBe(before);
  });

  it("another company's secret on this integration → 401", async () => {
    const other = await signUp(server, 'Other');
    await other.call('POST', '/api/integrations', { name: 'Theirs', connectorType: 'msgplatform', webhookSecret: 'their-secret-0123456789' });
    const { body, headers } = signed(message(), 'their-secret-0123456789');
    expect((await post(body, headers)).status).toBe(401);
  });

  it('a valid signature over unparseable JSON → 400 VALIDATION_ERROR', async () => {
    const { body, headers } = signed('{"text": "hi", ');
    const res = await post(body, headers);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('a valid signature over wrong field types → 400 VALIDATION_ERROR, nothing stored', async () => {
    const before = await headCount();
    const { body, headers } = signed({ text: 12, client_id: { a: 1 }, channel_id: 1, transport: 'telegram' });
    const res = await post(body, headers);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(await headCount()).toBe(before);
  });

  it('a content type that is not JSON → 415', async () => {
    const body = JSON.stringify(message());
    const res = await post(body, { 'content-type': 'text/plain', 'x-webhook-signature': signWebhookBody(body, SECRET) });
    expect(res.status).toBe(415);
    expect(res.body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('a 2 MiB body → 413', async () => {
    const body = JSON.stringify(message({ text: 'x'.repeat(2 * 1024 * 1024) }));
    const res = await post(body, { 'content-type': 'application/json', 'x-webhook-signature': signWebhookBody(body, SECRET) });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it.each([
    ['an unknown connector', '/api/webhook/telegram/1'],
    ['a non-numeric integration id', '/api/webhook/msgplatform/abc'],
    ['an unknown integration id', '/api/webhook/msgplatform/999999'],
  ])('%s → 404', async (_name, url) => {
    const { body, headers } = signed(message());
    const res = await post(body, headers, url);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
  });

  it('a deleted integration → 404, from the very next webhook', async () => {
    const created = (await acme.call('POST', '/api/integrations', { name: 'Temp', connectorType: 'msgplatform', webhookSecret: SECRET })).json().integration;
    const { body, headers } = signed(message());
    expect((await post(body, headers, `/api/webhook/msgplatform/${created.id}`)).status).toBe(200);
    expect((await acme.call('DELETE', `/api/integrations/${created.id}`)).statusCode).toBe(204);
    expect((await post(body, headers, `/api/webhook/msgplatform/${created.id}`)).status).toBe(404);
  });

  it('a webchat integration has no webhook: 404', async () => {
    const chat = (await acme.call('POST', '/api/integrations', { name: 'Chat', connectorType: 'webchat', webhookSecret: SECRET })).json().integration;
    const { body, headers } = signed(message());
    expect((await post(body, headers, `/api/webhook/webchat/${chat.id}`)).status).toBe(404);
  });

  it('an inactive integration → 403 INTEGRATION_INACTIVE; re-activated, the next webhook is accepted', async () => {
    const created = (await acme.call('POST', '/api/integrations', { name: 'Sleepy', connectorType: 'msgplatform', webhookSecret: SECRET, active: false })).json().integration;
    const url = `/api/webhook/msgplatform/${created.id}`;
    const { body, headers } = signed(message());
    const res = await post(body, headers, url);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('INTEGRATION_INACTIVE');
    await acme.call('PATCH', `/api/integrations/${created.id}`, { active: true });
    expect((await post(body, headers, url)).status).toBe(200);
  });

  it('a changed secret applies to the very next webhook', async () => {
    const created = (await acme.call('POST', '/api/integrations', { name: 'Rotating', connectorType: 'msgplatform', webhookSecret: SECRET })).json().integration;
    const url = `/api/webhook/msgplatform/${created.id}`;
    await acme.call('PATCH', `/api/integrations/${created.id}`, { webhookSecret: 'a-brand-new-secret-123456' });
    const old = signed(message());
    expect((await post(old.body, old.headers, url)).status).toBe(401);
    const fresh = signed(message(), 'a-brand-new-secret-123456');
    expect((await post(fresh.body, fresh.headers, url)).status).toBe(200);
  });

  it('a secret changed after webhooks were accepted with it applies to the very next webhook', async () => {
    const created = (await acme.call('POST', '/api/integrations', { name: 'Rotating later', connectorType: 'msgplatform', webhookSecret: SECRET })).json().integration;
    const url = `/api/webhook/msgplatform/${created.id}`;
    const before = signed(message());
    expect((await post(before.body, before.headers, url)).status).toBe(200);
    await acme.call('PATCH', `/api/integrations/${created.id}`, { webhookSecret: 'a-later-new-secret-1234567' });
    const old = signed(message());
    expect((await post(old.body, old.headers, url)).status).toBe(401);
    const fresh = signed(message(), 'a-later-new-secret-1234567');
    expect((await post(fresh.body, fresh.headers, url)).status).toBe(200);
  });

  it('no webhook secret configured → 401 WEBHOOK_SECRET_NOT_CONFIGURED', async () => {
    const created = (await acme.call('POST', '/api/integrations', { name: 'Open', connectorType: 'msgplatform' })).json().integration;
    const { body, headers } = signed(message());
    const res = await post(body, headers, `/api/webhook/msgplatform/${created.id}`);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('WEBHOOK_SECRET_NOT_CONFIGURED');
  });

  it('the same message 20 times concurrently → 20 × 200, one message stored', async () => {
    const payload = message({ client_id: 'burst-client', message_id: 987654, hook_type: 'inbox', type: 'from_client' });
    const { body, headers } = signed(payload);
    const results = await Promise.all(Array.from({ length: 20 }, () => post(body, headers)));
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
    const stored = (await server.adapters.eventStore.readAll({ filter: { eventTypes: ['MessageReceived'] } })).filter(
      (e) => (e.data as any).platform.messageId === 987654,
    );
    expect(stored).toHaveLength(1);
  });

  it('one commit per accepted webhook: the message and its log entry go into one append; a redelivery is logged on its own', async () => {
    const first = message({ client_id: 'one-commit', message_id: 'one-commit-1', hook_type: 'inbox', type: 'from_client' });
    expect((await post(signed(first).body, signed(first).headers)).status).toBe(200);
    const spy = vi.spyOn(server.adapters.eventStore, 'append');
    // The webhook's own appends: the processing side shares the store and may append replies and deliveries meanwhile.
    const webhookAppends = () => spy.mock.calls.filter(([stream, events]) => stream.startsWith('webhooklog-') || events.some((e) => e.type === 'MessageReceived' || e.type === 'WebhookDeliveryLogged'));
    try {
      const next = message({ client_id: 'one-commit', message_id: 'one-commit-2', hook_type: 'inbox', type: 'from_client' });
      const { body, headers } = signed(next);
      expect((await post(body, headers)).status).toBe(200);
      expect(webhookAppends()).toHaveLength(1);
      const [stream, events] = webhookAppends()[0]!;
      expect(stream).toMatch(/^conversation-/);
      expect(events.map((e) => e.type)).toEqual(['MessageReceived', 'WebhookDeliveryLogged']);
      expect(events[1]!.data).toMatchObject({ integrationId, httpStatus: 200, outcome: 'processed', kind: 'message', conversationId: stream.slice('conversation-'.length) });
      expect(JSON.stringify(events[1]!.data)).not.toContain(SECRET);

      // The redelivery stores no message, so its entry ("duplicate") is an append of its own, after the acknowledgement.
      spy.mockClear();
      expect((await post(body, headers)).status).toBe(200);
      await vi.waitFor(() => expect(webhookAppends()).toHaveLength(1));
      expect(webhookAppends()[0]![0]).toBe(`webhooklog-${integrationId}`);
      expect(webhookAppends()[0]![1][0]!.data).toMatchObject({ outcome: 'duplicate', reason: 'already received' });
    } finally {
      spy.mockRestore();
    }
  });

  it('a redelivery of the same body without message_id within 24 h is a no-op', async () => {
    const { body, headers } = signed(message({ client_id: 'same-body' }));
    expect((await post(body, headers)).status).toBe(200);
    expect((await post(body, headers)).status).toBe(200);
    const stored = (await server.adapters.eventStore.readAll({ filter: { eventTypes: ['MessageReceived'] } })).filter(
      (e) => e.stream.includes('') && (e.data as any).dedupeKey.startsWith('body:'),
    );
    const forThisBody = stored.filter((e) => (e.data as any).text === JSON.parse(body).text && e.stream === stored.at(-1)!.stream);
    expect(forThisBody).toHaveLength(1);
  });

  it("keeps the platform's native fields and ids exactly as given (numbers stay numbers)", async () => {
    const native = {
      hook_type: 'inbox',
      type: 'from_client',
      message_id: 555001,
      request_id: 777,
      dialog_id: '888',
      client_id: 31337,
      channel_id: 5,
      transport: 'whatsapp',
      text: 'Native hello',
      attachments: [{ type: 'image', link: 'https://cdn.example.com/a.png' }],
      client: { id: 31337, name: 'Bob', phone: '+4712345678' },
      event_time: '2026-11-22T08:00:00Z',
    };
    const { body, headers } = signed(native);
    expect((await post(body, headers)).status).toBe(200);
    const e = (await server.adapters.eventStore.readAll({ filter: { eventTypes: ['MessageReceived'] } })).find((x) => (x.data as any).platform.messageId === 555001)!;
    expect(e.data).toMatchObject({
      text: 'Native hello',
      platform: { messageId: 555001, requestId: 777, dialogId: '888', eventTime: '2026-11-22T08:00:00Z' },
      attachments: [{ type: 'image', link: 'https://cdn.example.com/a.png' }],
      client: { id: 31337, name: 'Bob', phone: '+4712345678' },
    });
    const started = (await server.adapters.eventStore.readStream(e.stream))[0]!;
    expect(started.data).toMatchObject({ customer: { clientId: 31337, channelId: 5, transport: 'whatsapp', name: 'Bob' } });
  });
});

describe('status events', () => {
  async function conversationWith(requestId: number, dialogId: number) {
    const clientId = `status-${requestId}`;
    const { body, headers } = signed({ hook_type: 'inbox', type: 'from_client', message_id: `m-${requestId}`, request_id: requestId, dialog_id: dialogId, client_id: clientId, channel_id: 1, transport: 'telegram', text: 'hi' });
    expect((await post(body, headers)).status).toBe(200);
    const e = (await server.adapters.eventStore.readAll({ filter: { eventTypes: ['MessageReceived'] } })).find((x) => (x.data as any).platform.requestId === requestId)!;
    return e.stream;
  }
  const types = async (stream: string) => (await server.adapters.eventStore.readStream(stream)).map((e) => e.type);

  it.each(['close_dialog', 'close_request'])('%s → session_close: the AI session is closed', async (hookType) => {
    const stream = await conversationWith(hookType === 'close_dialog' ? 1001 : 1002, 2001);
    const { body, headers } = signed({ hook_type: hookType, request_id: hookType === 'close_dialog' ? 1001 : 1002 });
    expect((await post(body, headers)).status).toBe(200);
    const events = await server.adapters.eventStore.readStream(stream);
    const closed = events.find((e) => e.type === 'AiSessionClosed')!;
    expect(closed.data).toMatchObject({ reason: hookType, action: 'session_close' });
  });

  it('dialog_transferred on a paused session: stays paused, transfer recorded in the shared context', async () => {
    const stream = await conversationWith(1003, 2003);
    const conversationId = stream.slice('conversation-'.length);
    // An operator's outbox message pauses the AI.
    const outbox = signed({ hook_type: 'outbox', type: 'to_client', message_id: 'op-1', request_id: 1003, client_id: 'status-1003', channel_id: 1, transport: 'telegram', text: 'Operator here' });
    expect((await post(outbox.body, outbox.headers)).status).toBe(200);
    expect(await types(stream)).toContain('AiSessionPaused');
    const { body, headers } = signed({ hook_type: 'dialog_transferred', request_id: 1003, dialog_id: 2003 });
    expect((await post(body, headers)).status).toBe(200);
    // The conversation's own events: each delivery's log entry is stored beside them.
    // The handoff's summary is written beside the session's events whenever the summary worker gets to it.
    const events = (await server.adapters.eventStore.readStream(stream)).filter((e) => e.type !== 'WebhookDeliveryLogged' && e.type !== 'HandoffSummarized');
    expect(events.map((e) => e.type).filter((t) => t.startsWith('AiSession'))).toEqual(['AiSessionOpened', 'AiSessionPaused']);
    expect(events.at(-1)!.type).toBe('DialogTransferred');
    expect(events.at(-1)!.data).toMatchObject({ action: 'session_transfer_external', dialogId: 2003, requestId: 1003 });
    expect(conversationId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('an unknown conversation or an unknown hook_type → 200 and ignored, with a log entry saying why', async () => {
    const unknownConversation = signed({ hook_type: 'close_dialog', request_id: 424242 });
    expect((await post(unknownConversation.body, unknownConversation.headers)).status).toBe(200);
    const unknownHook = signed({ hook_type: 'new_tag', request_id: 1 });
    expect((await post(unknownHook.body, unknownHook.headers)).status).toBe(200);
    const logs = (await acme.call('GET', `/api/webhook-logs?integrationId=${integrationId}&limit=5`)).json().logs;
    expect(logs[0]).toMatchObject({ outcome: 'ignored', httpStatus: 200, reason: expect.stringContaining('new_tag') });
    expect(logs[1]).toMatchObject({ outcome: 'ignored', kind: 'status_event', reason: expect.stringContaining('424242') });
  });
});

describe('webhook logs', () => {
  it('one entry per POST with outcome and reason, newest first, never a secret or signature', async () => {
    const good = signed(message({ client_id: 'log-1', message_id: 'log-msg-1' }));
    await post(good.body, good.headers);
    await post(good.body, good.headers);
    await post(good.body, { 'content-type': 'application/json', 'x-webhook-signature': 'sha256=deadbeef' });
    const res = await acme.call('GET', `/api/webhook-logs?integrationId=${integrationId}&limit=3`);
    expect(res.statusCode).toBe(200);
    const { logs, nextCursor } = res.json();
    expect(logs.map((l: any) => [l.outcome, l.httpStatus])).toEqual([
      ['rejected', 401],
      ['duplicate', 200],
      ['processed', 200],
    ]);
    expect(logs[0]).toEqual({
      id: expect.any(String),
      integrationId,
      receivedAt: expect.any(String),
      httpStatus: 401,
      outcome: 'rejected',
      kind: 'other',
      reason: expect.stringContaining('INVALID_SIGNATURE'),
      conversationId: null,
      hasPayload: true,
    });
    expect(nextCursor).toEqual(expect.any(String));
    const everything = JSON.stringify((await acme.call('GET', '/api/webhook-logs?limit=200')).json());
    expect(everything).not.toContain(SECRET);
    expect(everything).not.toContain('deadbeef');
  });

  it("another company sees none of this company's logs", async () => {
    const other = await signUp(server, 'Nosy');
    expect((await other.call('GET', '/api/webhook-logs')).json().logs).toEqual([]);
    expect((await other.call('GET', `/api/webhook-logs?integrationId=${integrationId}`)).json().logs).toEqual([]);
  });
});

describe('production mode', () => {
  it('refuses webhooks not over HTTPS (403 HTTPS_REQUIRED), and trusts X-Forwarded-Proto only from a configured proxy', async () => {
    for (const [trust, expected] of [
      ['', 403],
      ['127.0.0.1', 200],
    ] as const) {
      // The processor thread is not what this checks; starting one (TypeScript compiled in the thread) took most of the time.
      const prod = await startTestServer({ NODE_ENV: 'production', TRUST_PROXY: trust, PROCESSOR_THREAD: 'false' });
      try {
        const co = await signUp(prod, 'Prod');
        const created = (await co.call('POST', '/api/integrations', { name: 'P', connectorType: 'msgplatform', webhookSecret: SECRET })).json().integration;
        const { body, headers } = signed(message());
        const res = await prod.app.inject({
          method: 'POST',
          url: `/api/webhook/msgplatform/${created.id}`,
          payload: body,
          headers: { ...headers, 'x-forwarded-proto': 'https' },
          remoteAddress: '127.0.0.1',
        });
        expect(res.statusCode, `TRUST_PROXY=${trust}`).toBe(expected);
        if (expected === 403) expect(res.json().error.code).toBe('HTTPS_REQUIRED');
      } finally {
        await prod.close();
      }
    }
  }, 60_000);
});
