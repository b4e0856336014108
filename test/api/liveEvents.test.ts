import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { buildApp } from '../../src/http/app.js';
import { liveEventRoutes } from '../../src/http/routes/liveEvents.js';
import { signWebhookBody } from '../../src/http/platformWebhooks/webhookSignature.js';
import { signUp } from '../support/api.js';
import { startTestServer, type TestServer } from '../support/testServer.js';

/** GET /api/events/stream: Server-Sent Events through a listening server, read with fetch. */

const SECRET = 'whsec_live_events_0123456789';
const logLines: string[] = [];
const logSink = new Writable({
  write(chunk, _encoding, done) {
    logLines.push(String(chunk));
    done();
  },
});

let server: TestServer;
let base: string;
type Company = Awaited<ReturnType<typeof signUp>> & { integrationId: number };
let a: Company;
let b: Company;

async function company(name: string): Promise<Company> {
  const co = await signUp(server, name);
  const created = await co.call('POST', '/api/integrations', { name: 'Main', connectorType: 'msgplatform', webhookSecret: SECRET });
  expect(created.statusCode).toBe(201);
  return { ...co, integrationId: created.json().integration.id as number };
}

beforeAll(async () => {
  server = await startTestServer({ LOG_LEVEL: 'trace' }, logSink);
  base = await server.listen(0, '127.0.0.1');
  a = await company('Alpha');
  b = await company('Beta');
});
afterAll(async () => {
  await server?.close();
});

interface SseMessage {
  event: string;
  data: string;
}

/** A minimal EventSource over fetch: parses the stream and records every message and comment. */
async function openStream(url: string) {
  const controller = new AbortController();
  const res = await fetch(url, { signal: controller.signal, headers: { accept: 'text/event-stream' } });
  const messages: SseMessage[] = [];
  const comments: string[] = [];
  const fields: Record<string, string> = {};
  let ended = false;
  let buffer = '';
  const reading = (async () => {
    if (!res.body) return;
    const decoder = new TextDecoder();
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true }).replace(/\r\n?/g, '\n');
        let index: number;
        while ((index = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, index);
          buffer = buffer.slice(index + 2);
          const message: SseMessage = { event: 'message', data: '' };
          let hasData = false;
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comments.push(line.slice(1).trim());
            else {
              const colon = line.indexOf(':');
              const field = colon < 0 ? line : line.slice(0, colon);
              const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
              if (field === 'event') message.event = value;
              else if (field === 'data') {
                message.data += (hasData ? '\n' : '') + value;
                hasData = true;
              } else fields[field] = value;
            }
          }
          if (hasData) messages.push(message);
        }
      }
    } catch {
      // aborted
    } finally {
      ended = true;
    }
  })();
  return {
    res,
    messages,
    comments,
    fields,
    get ended() {
      return ended;
    },
    conversationIds: () => messages.filter((m) => m.event === 'conversation').map((m) => (JSON.parse(m.data) as { conversationId: string }).conversationId),
    async close() {
      controller.abort();
      await reading;
    },
    reading,
  };
}

const streamUrl = (token: string) => `${base}/api/events/stream?access_token=${encodeURIComponent(token)}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let seq = 0;
async function sendWebhook(co: Company, clientId: string, text = 'Hello there') {
  const body = JSON.stringify({ hook_type: 'inbox', type: 'from_client', message_id: `live-${Date.now()}-${seq++}`, client_id: clientId, channel_id: 7, transport: 'telegram', text });
  const res = await fetch(`${base}/api/webhook/msgplatform/${co.integrationId}`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', 'x-webhook-signature': signWebhookBody(body, SECRET) },
  });
  expect(res.status).toBe(200);
}
async function conversationOf(co: Company, clientId: string) {
  const list = (await co.call('GET', '/api/conversations?limit=200')).json().conversations as { id: string; customer: { clientId: unknown } }[];
  return list.find((c) => c.customer.clientId === clientId);
}
const listenersOf = (companyId: string) => server.liveEvents.listeners(companyId);

describe('GET /api/events/stream authentication', () => {
  it('no token → 401 JSON error, no stream', async () => {
    const res = await fetch(`${base}/api/events/stream`);
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toEqual({ error: { code: 'UNAUTHORIZED', message: expect.any(String) } });
  });

  it.each([
    ['a malformed JWT', 'not-a-jwt'],
    ['a forged JWT', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl'],
    ['an unknown API token', 'mas_0123456789abcdef0123456789abcdef_secretsecretsecretsecret'],
  ])('%s → 401 JSON error', async (_what, token) => {
    const res = await fetch(streamUrl(token));
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect((await res.json()).error.code).toBe('UNAUTHORIZED');
  });

  it('a session JWT opens a text/event-stream with a retry hint', async () => {
    const stream = await openStream(streamUrl(a.bearer));
    try {
      expect(stream.res.status).toBe(200);
      expect(stream.res.headers.get('content-type')).toMatch(/^text\/event-stream/);
      expect(stream.res.headers.get('cache-control')).toContain('no-cache');
      await expect.poll(() => stream.fields.retry).toMatch(/^\d+$/);
    } finally {
      await stream.close();
    }
    await expect.poll(() => listenersOf(a.company.companyId)).toBe(0);
  });

  it('a company API token works too, and is refused once revoked', async () => {
    const created = await a.call('POST', '/api/settings/api-tokens', { name: 'sse' });
    expect(created.statusCode).toBe(201);
    const { token, apiToken } = created.json();
    const stream = await openStream(streamUrl(token));
    expect(stream.res.status).toBe(200);
    await stream.close();
    expect((await a.call('DELETE', `/api/settings/api-tokens/${apiToken.id}`)).statusCode).toBe(204);
    const refused = await fetch(streamUrl(token));
    expect(refused.status).toBe(401);
    await refused.body?.cancel();
  });
});

describe('conversation changes reach only their company', () => {
  it("a webhook for company A → an event on A's stream, none on B's; the read model already shows it", async () => {
    const streamA = await openStream(streamUrl(a.bearer));
    const streamB = await openStream(streamUrl(b.bearer));
    try {
      await expect.poll(() => listenersOf(a.company.companyId) > 0 && listenersOf(b.company.companyId) > 0).toBe(true);
      await sendWebhook(a, 'live-alice', 'Is anyone there?');
      await expect.poll(() => streamA.conversationIds().length, { timeout: 5000 }).toBeGreaterThan(0);
      const id = streamA.conversationIds()[0]!;
      // Notified only after the projections caught up: the refetch sees the change at once.
      const detail = await a.call('GET', `/api/conversations/${id}`);
      expect(detail.statusCode).toBe(200);
      expect(detail.json().messages.map((m: { text: string }) => m.text)).toContain('Is anyone there?');
      expect((await conversationOf(a, 'live-alice'))?.id).toBe(id);
      // Conversation changes, and the webhook's log entry (webhookLogs.test.ts).
      expect(streamA.messages.every((m) => m.event === 'conversation' || m.event === 'webhook-log')).toBe(true);
      await sleep(500);
      expect(streamB.messages).toEqual([]);
    } finally {
      await streamA.close();
      await streamB.close();
    }
  });

  it('a conversation command (pause, stage) is announced too', async () => {
    await sendWebhook(b, 'live-bob');
    await expect.poll(async () => (await conversationOf(b, 'live-bob'))?.id, { timeout: 5000 }).toBeDefined();
    const conversation = (await conversationOf(b, 'live-bob'))!;
    const streamA = await openStream(streamUrl(a.bearer));
    const streamB = await openStream(streamUrl(b.bearer));
    try {
      await expect.poll(() => listenersOf(a.company.companyId) > 0 && listenersOf(b.company.companyId) > 0).toBe(true);
      expect((await b.call('POST', `/api/conversations/${conversation.id}/pause`)).statusCode).toBe(200);
      await expect.poll(() => streamB.conversationIds(), { timeout: 5000 }).toContain(conversation.id);
      const stages = (await b.call('GET', '/api/pipeline')).json().pipeline.stages as { id: string }[];
      const before = streamB.conversationIds().length;
      expect((await b.call('PUT', `/api/conversations/${conversation.id}/stage`, { stageId: stages[2]!.id })).statusCode).toBe(200);
      await expect.poll(() => streamB.conversationIds().length, { timeout: 5000 }).toBeGreaterThan(before);
      await sleep(300);
      expect(streamA.messages).toEqual([]);
    } finally {
      await streamA.close();
      await streamB.close();
    }
  });

  it('a client that disconnects is forgotten', async () => {
    // Earlier tests' streams were aborted by the client: the server notices each close.
    await expect.poll(() => listenersOf(a.company.companyId)).toBe(0);
    const stream = await openStream(streamUrl(a.bearer));
    await expect.poll(() => listenersOf(a.company.companyId)).toBe(1);
    await stream.close();
    await expect.poll(() => listenersOf(a.company.companyId)).toBe(0);
  });
});

describe('keep-alive', () => {
  it('sends comment lines and ends the stream once its API token is revoked', async () => {
    // The same services and hub, mounted with a short keep-alive interval.
    const app = await buildApp({
      config: server.services.config,
      logger: pino({ level: 'silent' }),
      readiness: async () => ({}),
      features: [liveEventRoutes(server.services, server.liveEvents, { keepAliveMs: 100 })],
    });
    const fastBase = await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const created = (await a.call('POST', '/api/settings/api-tokens', { name: 'keep-alive' })).json();
      const stream = await openStream(`${fastBase}/api/events/stream?access_token=${encodeURIComponent(created.token)}`);
      expect(stream.res.status).toBe(200);
      await expect.poll(() => stream.comments.filter((c) => c === 'keep-alive').length).toBeGreaterThan(1);
      expect(stream.ended).toBe(false);
      expect((await a.call('DELETE', `/api/settings/api-tokens/${created.apiToken.id}`)).statusCode).toBe(204);
      await expect.poll(() => stream.ended, { timeout: 3000 }).toBe(true);
    } finally {
      await app.close();
    }
  });
});

describe('logs', () => {
  it('never contain the query token (accepted or refused)', async () => {
    const stream = await openStream(streamUrl(a.bearer));
    await stream.close();
    const bad = 'bad-token-that-must-not-be-logged-7f3a9c';
    await (await fetch(streamUrl(bad))).text();
    await sleep(100);
    const all = logLines.join('');
    // Requests to the stream were logged (so the check below is meaningful)…
    expect(all).toContain('/api/events/stream');
    // …without the token.
    expect(all).not.toContain(a.bearer);
    expect(all).not.toContain(bad);
    expect(all).not.toContain('access_token=');
  });
});

describe('shutdown', () => {
  it('open streams do not hold up server close', async () => {
    const own = await startTestServer();
    const ownBase = await own.listen(0, '127.0.0.1');
    const co = await signUp(own, 'Closing');
    const stream = await openStream(`${ownBase}/api/events/stream?access_token=${encodeURIComponent(co.bearer)}`);
    expect(stream.res.status).toBe(200);
    await expect.poll(() => own.liveEvents.listeners()).toBe(1);
    const started = Date.now();
    await own.close();
    expect(Date.now() - started).toBeLessThan(5000);
    await stream.reading;
    expect(stream.ended).toBe(true);
  });
});
