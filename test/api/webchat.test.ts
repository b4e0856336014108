import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { conversationIdFor } from '../../src/commands/conversations/conversationIds.js';
import { createVisitorTokens } from '../../src/infrastructure/auth/visitorTokens.js';
import { createLogger } from '../../src/infrastructure/logger.js';
import { soleLeases } from '../../src/infrastructure/memory/soleLeases.js';
import { createMemoryRateLimiter } from '../../src/infrastructure/memory/memoryRateLimiter.js';
import { connectNatsBus } from '../../src/infrastructure/nats/natsBus.js';
import { SqliteReadStore } from '../../src/infrastructure/sqlite/sqliteReadStore.js';
import { createServer, type Server } from '../../src/server.js';
import { createAgent, createWebchatIntegration, signUp } from '../support/api.js';
import { startNatsServer, type NatsServerHandle } from '../support/natsServer.js';
import { startTestServer, type TestServer } from '../support/testServer.js';
import { connectWebchat, PER_IP_WEBCHAT_LIMITS_LIFTED, type WebchatClient } from '../support/webchatClient.js';

const ORIGIN = 'http://shop.example';
const KB = '# Shipping\n\nWe ship to Norway, Sweden and Denmark within 3 business days. Shipping is free above 50 EUR.';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let server: TestServer;
let base: string;
const clients: WebchatClient[] = [];

beforeAll(async () => {
  // Every socket of this file comes from 127.0.0.1: the per-IP flood limits (webchatLimits.test.ts) are lifted.
  server = await startTestServer({ REPLY_BURST_WINDOW_MS: '200', WEBCHAT_MESSAGES_PER_10S: '5', ...PER_IP_WEBCHAT_LIMITS_LIFTED });
  base = await server.listen(0, '127.0.0.1');
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  await server?.close();
});

async function connect(integrationId: number | string, origin: string | null = ORIGIN, target = base, extra: { autoPong?: boolean } = {}) {
  const client = await connectWebchat(target, integrationId, { origin, ...extra });
  clients.push(client);
  return client;
}

/** A company with a builtin-LLM agent answering from its knowledge base, and a webchat integration. */
async function webchatCompany(target: Server = server, options: { active?: boolean; allowedOrigins?: string[] } = {}) {
  const co = await signUp(target as TestServer, 'Webchat Inc');
  const agentId = await createAgent(co, { name: 'Ava', systemPrompt: 'You are Ava.', handoffMessage: 'A colleague will reply soon.' });
  expect((await co.call('POST', '/api/knowledge-base/documents', { title: 'Shipping', content: KB })).statusCode).toBe(201);
  return { ...co, integrationId: await createWebchatIntegration(co, agentId, options.allowedOrigins ?? [ORIGIN], { active: options.active ?? true }) };
}

const eventsOf = async (target: Server, conversationId: string) => target.adapters.eventStore.readStream(`conversation-${conversationId}`);
const storedMessages = async (target: Server, conversationId: string) =>
  (await eventsOf(target, conversationId)).filter((e) => e.type === 'MessageReceived').map((e) => e.data as { messageId: string; text: string; clientMessageId?: string });

describe('connecting', () => {
  it('refuses an origin not in allowedOrigins and a missing Origin (4403, final), unknown, non-webchat and inactive integrations (1008): error frame, then close', async () => {
    const co = await webchatCompany();
    for (const origin of ['http://evil.example', 'https://shop.example', 'http://shop.example:8080', null]) {
      const c = await connect(co.integrationId, origin);
      expect(await c.waitFor((f) => f.type === 'error')).toMatchObject({ type: 'error', code: 'ORIGIN_NOT_ALLOWED' });
      expect((await c.closed).code).toBe(4403);
    }
    const unknown = await connect(999_999);
    expect(await unknown.waitFor((f) => f.type === 'error')).toMatchObject({ code: 'NOT_FOUND' });
    expect((await unknown.closed).code).toBe(1008);
    const garbage = await connect('abc');
    expect((await garbage.closed).code).toBe(1008);

    const platform = await co.call('POST', '/api/integrations', { name: 'Platform', connectorType: 'msgplatform', allowedOrigins: [ORIGIN] });
    const notWebchat = await connect(platform.json().integration.id);
    expect(await notWebchat.waitFor((f) => f.type === 'error')).toMatchObject({ code: 'NOT_FOUND' });
    expect((await notWebchat.closed).code).toBe(1008);

    const inactive = await webchatCompany(server, { active: false });
    const off = await connect(inactive.integrationId);
    expect(await off.waitFor((f) => f.type === 'error')).toMatchObject({ code: 'INTEGRATION_INACTIVE' });
    expect((await off.closed).code).toBe(1008);
  });

  it('hello → ready with a new visitor, a signed visitor token and an empty history', async () => {
    const co = await webchatCompany();
    const c = await connect(co.integrationId);
    const ready = await c.hello();
    expect(ready).toMatchObject({ type: 'ready', visitorId: expect.any(String), visitorToken: expect.any(String), history: [] });
    expect(ready.conversationId).toBe(conversationIdFor(co.integrationId, ready.visitorId));
    // A visitor id without its token is not trusted: a new visitor.
    const other = await connect(co.integrationId);
    const second = await other.hello({ visitorId: ready.visitorId });
    expect(second.visitorId).not.toBe(ready.visitorId);
  });
});

describe('messages', () => {
  it('acks a message once it is stored, before the answer; typing on, the agent answer from the knowledge base, typing off', async () => {
    const co = await webchatCompany();
    const c = await connect(co.integrationId);
    const ready = await c.hello();
    const ack = await c.message('Do you ship to Norway?', 'cm-1');
    expect(ack).toMatchObject({ type: 'ack', clientMessageId: 'cm-1', messageId: expect.any(String) });
    // Stored when acknowledged.
    expect(await storedMessages(server, ready.conversationId)).toEqual([
      expect.objectContaining({ messageId: ack.messageId, text: 'Do you ship to Norway?', clientMessageId: 'cm-1' }),
    ]);
    const answer = await c.waitFor((f) => f.type === 'message');
    expect(answer).toMatchObject({ type: 'message', author: 'agent', id: expect.any(String), createdAt: expect.any(String) });
    expect(answer.text).toContain('We ship to Norway');
    await c.waitFor((f) => f.type === 'typing' && f.on === false);
    const order = c.frames.map((f) => (f.type === 'typing' ? `typing:${f.on}` : f.type));
    expect(order.indexOf('ack')).toBeLessThan(order.indexOf('typing:true'));
    expect(order.indexOf('typing:true')).toBeLessThan(order.indexOf('message'));
    expect(order.lastIndexOf('typing:false')).toBeGreaterThan(order.indexOf('typing:true'));
    // The conversation is a webchat conversation of this visitor.
    const started = (await eventsOf(server, ready.conversationId)).find((e) => e.type === 'ConversationStarted')!;
    expect(started.data).toMatchObject({ integrationId: co.integrationId, connectorType: 'webchat', customer: { clientId: ready.visitorId, channelId: null, transport: 'webchat' } });
  });

  it('a resent clientMessageId is acknowledged again with the same id and stored once', async () => {
    const co = await webchatCompany();
    const c = await connect(co.integrationId);
    const ready = await c.hello();
    const first = await c.message('Hello there', 'dup-1');
    c.send({ type: 'message', text: 'Hello there', clientMessageId: 'dup-1' });
    await c.waitFor((f) => f.type === 'ack' && f !== first);
    const acks = c.frames.filter((f) => f.type === 'ack');
    expect(acks).toHaveLength(2);
    expect(acks[1]!.messageId).toBe(first.messageId);
    // And again after a reconnect, on another socket.
    const again = await connect(co.integrationId);
    await again.hello({ visitorId: ready.visitorId, visitorToken: ready.visitorToken });
    expect((await again.message('Hello there', 'dup-1')).messageId).toBe(first.messageId);
    expect(await storedMessages(server, ready.conversationId)).toHaveLength(1);
  });

  it('bad frames get an error frame and the connection stays usable', async () => {
    const co = await webchatCompany();
    const c = await connect(co.integrationId);
    c.send({ type: 'message', text: 'too early', clientMessageId: 'early-1' });
    expect(await c.waitFor((f) => f.type === 'error')).toMatchObject({ code: 'HELLO_REQUIRED' });
    const ready = await c.hello();
    const errors = () => c.frames.filter((f) => f.type === 'error');
    c.send('this is not json');
    c.send('[1,2]');
    c.send({ type: 'subscribe' });
    c.send({ text: 'no type' });
    c.send({ type: 'message', clientMessageId: 'no-text' });
    c.send({ type: 'message', text: '   ', clientMessageId: 'blank' });
    c.send({ type: 'message', text: 'no id' });
    c.send({ type: 'hello' });
    c.ws.send(Buffer.from([1, 2, 3]), { binary: true });
    await expect.poll(() => errors().length, { timeout: 5000 }).toBe(10);
    expect(errors().map((f) => f.code)).toEqual([
      'HELLO_REQUIRED',
      'BAD_FRAME',
      'BAD_FRAME',
      'BAD_FRAME',
      'BAD_FRAME',
      'VALIDATION_ERROR',
      'VALIDATION_ERROR',
      'VALIDATION_ERROR',
      'BAD_FRAME',
      'BAD_FRAME',
    ]);
    expect(errors().every((f) => typeof f.message === 'string' && f.message.length > 0)).toBe(true);
    expect(errors().find((f) => f.clientMessageId === 'no-text')).toMatchObject({ code: 'VALIDATION_ERROR' });
    // Still usable.
    expect(await c.message('Do you ship to Norway?', 'after-bad')).toMatchObject({ type: 'ack' });
    expect(c.ws.readyState).toBe(c.ws.OPEN);
    expect(await storedMessages(server, ready.conversationId)).toHaveLength(1);
  });

  it('more than the per-visitor limit in 10 s is refused with RATE_LIMITED naming the message; the connection stays', async () => {
    const co = await webchatCompany();
    const c = await connect(co.integrationId);
    const ready = await c.hello();
    for (let i = 0; i < 7; i++) c.send({ type: 'message', text: `Message ${i}`, clientMessageId: `rl-${i}` });
    await expect.poll(() => c.frames.filter((f) => f.type === 'ack' || f.type === 'error').length, { timeout: 5000 }).toBe(7);
    expect(c.frames.filter((f) => f.type === 'ack').map((f) => f.clientMessageId)).toEqual(['rl-0', 'rl-1', 'rl-2', 'rl-3', 'rl-4']);
    expect(c.frames.filter((f) => f.type === 'error')).toEqual([
      expect.objectContaining({ code: 'RATE_LIMITED', clientMessageId: 'rl-5' }),
      expect.objectContaining({ code: 'RATE_LIMITED', clientMessageId: 'rl-6' }),
    ]);
    // The limit is per visitor: another connection of the same visitor is limited too.
    const twin = await connect(co.integrationId);
    await twin.hello({ visitorToken: ready.visitorToken });
    expect(await twin.message('One more', 'rl-7')).toMatchObject({ type: 'error', code: 'RATE_LIMITED' });
    expect(await storedMessages(server, ready.conversationId)).toHaveLength(5);
    expect(c.ws.readyState).toBe(c.ws.OPEN);
  });

  it('a frame over 16 KiB closes the connection with 1009', async () => {
    const co = await webchatCompany();
    const c = await connect(co.integrationId);
    await c.hello();
    c.send({ type: 'message', text: 'x'.repeat(17 * 1024), clientMessageId: 'big' });
    expect((await c.closed).code).toBe(1009);
  });
});

describe('two tabs of one visitor', () => {
  it('the same first message sent from both tabs at once is stored once, acked in both, and answered exactly once', async () => {
    const co = await webchatCompany();
    for (let round = 0; round < 4; round++) {
      const first = await connect(co.integrationId);
      const ready = await first.hello();
      const second = await connect(co.integrationId);
      await second.hello({ visitorId: ready.visitorId, visitorToken: ready.visitorToken });
      const [a, b] = await Promise.all([first.message('Do you ship to Norway?', `tab-race-${round}`), second.message('Do you ship to Norway?', `tab-race-${round}`)]);
      expect(a).toMatchObject({ type: 'ack', messageId: b.messageId });
      await first.waitFor((f) => f.type === 'message' && f.author === 'agent', 10_000);
      await sleep(400);
      const events = await eventsOf(server, ready.conversationId);
      expect(events.filter((e) => e.type === 'MessageReceived')).toHaveLength(1);
      expect(events.filter((e) => e.type === 'AgentReplied')).toHaveLength(1);
      expect(events.filter((e) => e.type === 'AiSessionOpened')).toHaveLength(1);
    }
  });
});

describe('resume', () => {
  it('a reconnect with the visitor token continues the conversation and receives what it missed', async () => {
    const co = await webchatCompany();
    const c = await connect(co.integrationId);
    const ready = await c.hello();
    const ack = await c.message('Do you ship to Norway?', 'resume-1');
    await c.close(); // gone before the answer
    await expect.poll(async () => (await eventsOf(server, ready.conversationId)).some((e) => e.type === 'MessageDelivered'), { timeout: 10_000 }).toBe(true);

    const back = await connect(co.integrationId);
    const resumed = await back.hello({ visitorId: ready.visitorId, visitorToken: ready.visitorToken });
    expect(resumed).toMatchObject({ type: 'ready', conversationId: ready.conversationId, visitorId: ready.visitorId, visitorToken: expect.any(String) });
    expect(resumed.history).toEqual([
      { id: ack.messageId, author: 'customer', text: 'Do you ship to Norway?', createdAt: expect.any(String), clientMessageId: 'resume-1' },
      { id: expect.any(String), author: 'agent', text: expect.stringContaining('We ship to Norway'), createdAt: expect.any(String) },
    ]);
    // The conversation goes on: the next answer is pushed on the new socket.
    await back.message('Is shipping free?', 'resume-2');
    const next = await back.waitFor((f) => f.type === 'message');
    expect(next.author).toBe('agent');
    expect(await storedMessages(server, ready.conversationId)).toHaveLength(2);
    // The renewed token works as well.
    const third = await connect(co.integrationId);
    expect(await third.hello({ visitorToken: resumed.visitorToken })).toMatchObject({ type: 'ready', conversationId: ready.conversationId });
  });

  it('an operator message from the dashboard is pushed to the visitor', async () => {
    const co = await webchatCompany();
    const c = await connect(co.integrationId);
    const ready = await c.hello();
    await c.message('Do you ship to Norway?', 'op-1');
    await c.waitFor((f) => f.type === 'message' && f.author === 'agent');
    const res = await co.call('POST', `/api/conversations/${ready.conversationId}/messages`, { text: 'Hello from Anna' });
    expect(res.statusCode).toBe(202);
    expect(await c.waitFor((f) => f.type === 'message' && f.author === 'operator')).toMatchObject({ text: 'Hello from Anna' });
  });

  it('refuses a forged token, a token of another integration and a session token with INVALID_VISITOR_TOKEN', async () => {
    const co = await webchatCompany();
    const otherIntegration = await co.call('POST', '/api/integrations', { name: 'Other chat', connectorType: 'webchat', allowedOrigins: [ORIGIN] });
    const otherId = otherIntegration.json().integration.id as number;
    const c = await connect(otherId);
    const foreign = await c.hello();

    const visitorId = 'forged-visitor';
    const claims = { integrationId: co.integrationId, visitorId, conversationId: conversationIdFor(co.integrationId, visitorId) };
    const forged = await createVisitorTokens({ key: new TextEncoder().encode('x'.repeat(40)), conversationIdFor }).issue(claims);
    const unsigned = await new SignJWT({ ...claims, typ: 'visitor' }).setProtectedHeader({ alg: 'HS256' }).setSubject(visitorId).sign(new Uint8Array(32));
    const [h, p] = forged.split('.');
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${p}.`;

    for (const visitorToken of [forged, unsigned, none, `${h}.${p}.AAAA`, 'garbage', foreign.visitorToken, co.bearer]) {
      const s = await connect(co.integrationId);
      s.send({ type: 'hello', visitorToken });
      expect(await s.waitFor((f) => f.type === 'error')).toMatchObject({ code: 'INVALID_VISITOR_TOKEN' });
      expect((await s.closed).code).toBe(1008);
    }
    // A token presented with another visitor id is refused too.
    const s = await connect(otherId);
    s.send({ type: 'hello', visitorId: 'someone-else', visitorToken: foreign.visitorToken });
    expect(await s.waitFor((f) => f.type === 'error')).toMatchObject({ code: 'INVALID_VISITOR_TOKEN' });
    // Nothing was stored for the forged visitor.
    expect(await eventsOf(server, claims.conversationId)).toHaveLength(0);
  });

  it('deactivating the integration or dropping the origin stops the next message', async () => {
    const co = await webchatCompany();
    const c = await connect(co.integrationId);
    await c.hello();
    expect((await co.call('PATCH', `/api/integrations/${co.integrationId}`, { active: false })).statusCode).toBe(200);
    c.send({ type: 'message', text: 'Hello?', clientMessageId: 'off-1' });
    expect(await c.waitFor((f) => f.type === 'error')).toMatchObject({ code: 'INTEGRATION_INACTIVE' });
    expect((await c.closed).code).toBe(1008);
    await co.call('PATCH', `/api/integrations/${co.integrationId}`, { active: true, allowedOrigins: ['https://elsewhere.example'] });
    const d = await connect(co.integrationId, 'https://elsewhere.example');
    await d.hello();
    await co.call('PATCH', `/api/integrations/${co.integrationId}`, { allowedOrigins: [ORIGIN] });
    d.send({ type: 'message', text: 'Hello?', clientMessageId: 'off-2' });
    expect(await d.waitFor((f) => f.type === 'error')).toMatchObject({ code: 'ORIGIN_NOT_ALLOWED' });
  });
});

describe('limits', () => {
  let limited: TestServer;
  let limitedBase: string;
  beforeAll(async () => {
    limited = await startTestServer({ WEBCHAT_MAX_CONNECTIONS_PER_IP: '2', WEBCHAT_HEARTBEAT_MS: '200' });
    limitedBase = await limited.listen(0, '127.0.0.1');
  });
  afterAll(async () => {
    await limited?.close();
  });

  it('connections per IP beyond the limit are closed with 1013; a freed slot can be used again', async () => {
    const co = await webchatCompany(limited);
    const a = await connect(co.integrationId, ORIGIN, limitedBase);
    const b = await connect(co.integrationId, ORIGIN, limitedBase);
    await a.hello();
    await b.hello();
    const c = await connect(co.integrationId, ORIGIN, limitedBase);
    expect(await c.waitFor((f) => f.type === 'error')).toMatchObject({ code: 'TOO_MANY_CONNECTIONS' });
    expect((await c.closed).code).toBe(1013);
    await a.close();
    await sleep(100);
    const d = await connect(co.integrationId, ORIGIN, limitedBase);
    expect(await d.hello()).toMatchObject({ type: 'ready' });
    await Promise.all([b.close(), d.close()]);
  });

  it('pings idle connections; one that stops answering is cut, one that answers stays', async () => {
    const co = await webchatCompany(limited);
    const live = await connect(co.integrationId, ORIGIN, limitedBase);
    let pings = 0;
    live.ws.on('ping', () => pings++);
    await live.hello();
    const dead = await connect(co.integrationId, ORIGIN, limitedBase, { autoPong: false });
    await dead.hello();
    const closed = await dead.closed;
    expect(closed.code).toBe(1006); // terminated without a close frame
    expect(pings).toBeGreaterThanOrEqual(1);
    expect(live.ws.readyState).toBe(live.ws.OPEN);
    await live.close();
  });

  it('a server shutting down closes its sockets with 1001', async () => {
    const own = await startTestServer();
    const ownBase = await own.listen(0, '127.0.0.1');
    const co = await webchatCompany(own);
    const c = await connect(co.integrationId, ORIGIN, ownBase);
    await c.hello();
    await own.close();
    expect((await c.closed).code).toBe(1001);
  });
});

describe('across instances', () => {
  let nats: NatsServerHandle;
  let primary: TestServer;
  let secondary: Server;
  let secondaryBase: string;
  let secondaryDir: string;

  beforeAll(async () => {
    nats = await startNatsServer();
    primary = await startTestServer({ NATS_URL: nats.url, REPLY_BURST_WINDOW_MS: '200' });
    await primary.listen(0, '127.0.0.1');
    // A second instance on the same event store and NATS, with its own read models and no workers: every
    // reply is generated (and broadcast) by the primary.
    secondaryDir = mkdtempSync(join(tmpdir(), 'mas-test-second-'));
    const logger = createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
    const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent', DATA_DIR: primary.dataDir, NATS_URL: nats.url });
    const bus = await connectNatsBus({ servers: nats.url, logger, name: 'second-instance' });
    const readStore = SqliteReadStore.open({ path: join(secondaryDir, 'readmodels.sqlite'), logger });
    secondary = await createServer(config, logger, {
      workers: false,
      adapters: {
        eventStore: primary.adapters.eventStore,
        personalKeys: primary.adapters.personalKeys,
        readStore,
        bus,
        rateLimiter: createMemoryRateLimiter(),
        leases: soleLeases,
        engines: { eventStore: 'sqlite', readStore: 'sqlite', bus: 'nats' },
        async close() {
          await bus.close();
          await readStore.close();
        },
      },
    });
    await secondary.processingStarted;
    secondaryBase = await secondary.listen(0, '127.0.0.1');
  });
  afterAll(async () => {
    await secondary?.stop();
    await primary?.close();
    await nats?.stop();
    if (secondaryDir) rmSync(secondaryDir, { recursive: true, force: true });
  });

  it('a reply produced on one instance reaches the visitor connected to another through the bus', async () => {
    const co = await webchatCompany(primary);
    const c = await connect(co.integrationId, ORIGIN, secondaryBase);
    const ready = await c.hello();
    await c.message('Do you ship to Norway?', 'x-1');
    const answer = await c.waitFor((f) => f.type === 'message', 15_000);
    expect(answer.text).toContain('We ship to Norway');
    expect(c.frames.some((f) => f.type === 'typing' && f.on === true)).toBe(true);
    expect(await storedMessages(primary, ready.conversationId)).toHaveLength(1);
  });
});
