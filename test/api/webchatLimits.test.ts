/**
 * Web-chat flood limits beyond the per-visitor one: new visitors and messages per client IP and per integration,
 * counted across every instance sharing one NATS. Real servers, real WebSocket clients; the client IP comes
 * from X-Forwarded-For where the server trusts the proxy (TRUST_PROXY), so one test process can be many IPs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Server } from '../../src/server.js';
import { createAgent, createWebchatIntegration, signUp } from '../support/api.js';
import { startNatsServer, type NatsServerHandle } from '../support/natsServer.js';
import { startTestInstances, startTestServer, type TestInstances, type TestServer } from '../support/testServer.js';
import { connectWebchat, type Frame, type WebchatClient } from '../support/webchatClient.js';

const ORIGIN = 'http://shop.example';
const clients: WebchatClient[] = [];

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
});

async function connect(base: string, integrationId: number, ip?: string) {
  const client = await connectWebchat(base, integrationId, { origin: ORIGIN, ...(ip ? { headers: { 'x-forwarded-for': ip } } : {}) });
  clients.push(client);
  return client;
}

/** A company with an agent and a webchat integration; `webchat()` adds another integration to it. */
async function webchatCompany(server: Server) {
  const co = await signUp(server as TestServer, 'Flood Target');
  const agentId = await createAgent(co);
  const webchat = () => createWebchatIntegration(co, agentId, [ORIGIN]);
  return { ...co, webchat, integrationId: await webchat() };
}

/** Opens `count` sockets at once (`target(i)` picks server and IP) and says hello on all; returns each outcome. */
async function newVisitors(count: number, target: (i: number) => { base: string; ip?: string }, integrationId: number) {
  const sockets = await Promise.all(Array.from({ length: count }, (_, i) => connect(target(i).base, integrationId, target(i).ip)));
  const outcomes = await Promise.all(sockets.map(async (socket) => ({ socket, frame: await socket.hello() })));
  return {
    ready: outcomes.filter((o) => o.frame.type === 'ready').map(({ socket, frame }) => ({ socket, ready: frame })),
    refused: outcomes.filter((o) => o.frame.type === 'error').map(({ socket, frame }) => ({ socket, error: frame })),
  };
}

/** Every visitor sends `perVisitor` messages at once; resolves once each got its ack or error. */
async function burst(visitors: { socket: WebchatClient }[], perVisitor: number, tag: string) {
  const answers = await Promise.all(
    visitors.flatMap(({ socket }, v) => Array.from({ length: perVisitor }, (_, m) => socket.message(`Hello ${v}/${m}`, `${tag}-${v}-${m}`))),
  );
  return { acks: answers.filter((f) => f.type === 'ack'), errors: answers.filter((f) => f.type === 'error') };
}

const storedMessages = async (server: Server, conversationIds: string[]) => {
  let n = 0;
  for (const id of conversationIds) n += (await server.adapters.eventStore.readStream(`conversation-${id}`)).filter((e) => e.type === 'MessageReceived').length;
  return n;
};
const acked = (socket: WebchatClient, clientMessageId: string) => socket.frames.some((f: Frame) => f.type === 'ack' && f.clientMessageId === clientMessageId);

describe('per IP and per integration, one instance', () => {
  let server: TestServer;
  let base: string;
  beforeAll(async () => {
    server = await startTestServer({
      TRUST_PROXY: '127.0.0.1',
      REPLY_BURST_WINDOW_MS: '200',
      WEBCHAT_MAX_CONNECTIONS_PER_IP: '1000',
      WEBCHAT_NEW_VISITORS_PER_IP_PER_MINUTE: '5',
      WEBCHAT_NEW_VISITORS_PER_INTEGRATION_PER_MINUTE: '12',
      WEBCHAT_MESSAGES_PER_IP_PER_MINUTE: '8',
      WEBCHAT_MESSAGES_PER_INTEGRATION_PER_MINUTE: '20',
    });
    base = await server.listen(0, '127.0.0.1');
  });
  afterAll(async () => {
    await server?.close();
  });

  it('one IP opening 30 new visitors in a burst gets 5; the rest get RATE_LIMITED and close 1013, and its messages stop at 8 stored', async () => {
    const co = await webchatCompany(server);
    const ip = '203.0.113.10';
    const { ready, refused } = await newVisitors(30, () => ({ base, ip }), co.integrationId);
    expect(ready).toHaveLength(5);
    expect(refused).toHaveLength(25);
    for (const { socket, error } of refused) {
      expect(error).toMatchObject({ type: 'error', code: 'RATE_LIMITED', message: expect.stringMatching(/new visitors/i) });
      expect(await socket.closed).toEqual({ code: 1013, reason: 'RATE_LIMITED' });
    }

    // 5 visitors × 3 messages at once from that IP: 8 stored and acknowledged, the other 7 refused naming the
    // message, never acknowledged (the widget can send them again later) and never stored.
    const { acks, errors } = await burst(ready, 3, 'ip');
    expect(acks).toHaveLength(8);
    expect(errors).toHaveLength(7);
    for (const e of errors) {
      expect(e).toMatchObject({ code: 'RATE_LIMITED', clientMessageId: expect.any(String), message: expect.stringMatching(/this address/i) });
      expect(ready.some(({ socket }) => acked(socket, e.clientMessageId))).toBe(false);
    }
    const conversations = ready.map((r) => r.ready.conversationId as string);
    expect(await storedMessages(server, conversations)).toBe(8);
    // Limited sockets stay open; the widget's connections are not churned by a refused message.
    expect(ready.every(({ socket }) => socket.ws.readyState === socket.ws.OPEN)).toBe(true);

    // A returning visitor (valid token) is not a new visitor: let in, but the IP's message budget still applies.
    const back = await connect(base, co.integrationId, ip);
    expect(await back.hello({ visitorToken: ready[0]!.ready.visitorToken })).toMatchObject({ type: 'ready', conversationId: conversations[0] });
    expect(await back.message('Still there?', 'ip-back')).toMatchObject({ type: 'error', code: 'RATE_LIMITED', clientMessageId: 'ip-back' });

    // Another IP on the same integration is unaffected.
    const neighbour = await connect(base, co.integrationId, '203.0.113.11');
    const hers = await neighbour.hello();
    expect(hers).toMatchObject({ type: 'ready' });
    expect(await neighbour.message('Do you ship to Norway?', 'n-1')).toMatchObject({ type: 'ack' });
    expect(await storedMessages(server, [...conversations, hers.conversationId])).toBe(9);
  });

  it('an integration takes 12 new visitors and 20 messages a minute from all IPs together; its company’s other integration and another company are unaffected', async () => {
    const co = await webchatCompany(server);
    const { ready, refused } = await newVisitors(16, (i) => ({ base, ip: `198.51.100.${i + 1}` }), co.integrationId);
    expect(ready).toHaveLength(12);
    expect(refused).toHaveLength(4);
    for (const { socket, error } of refused) {
      expect(error).toMatchObject({ code: 'RATE_LIMITED', message: expect.stringMatching(/this chat/i) });
      expect((await socket.closed).code).toBe(1013);
    }
    const { acks, errors } = await burst(ready, 2, 'int');
    expect(acks).toHaveLength(20);
    expect(errors).toHaveLength(4);
    expect(errors.every((e) => e.code === 'RATE_LIMITED')).toBe(true);
    expect(await storedMessages(server, ready.map((r) => r.ready.conversationId as string))).toBe(20);

    const sibling = await co.webchat();
    const other = await webchatCompany(server);
    for (const [integrationId, ip] of [
      [sibling, '192.0.2.1'],
      [other.integrationId, '192.0.2.2'],
    ] as const) {
      const c = await connect(base, integrationId, ip);
      expect(await c.hello()).toMatchObject({ type: 'ready' });
      expect(await c.message('Hello?', `free-${integrationId}`)).toMatchObject({ type: 'ack' });
    }
  });
});

describe('the client IP without a trusted proxy', () => {
  it('is the socket’s address: X-Forwarded-For is ignored unless TRUST_PROXY is set', async () => {
    const server = await startTestServer({ WEBCHAT_MAX_CONNECTIONS_PER_IP: '1000', WEBCHAT_NEW_VISITORS_PER_IP_PER_MINUTE: '3' });
    try {
      const base = await server.listen(0, '127.0.0.1');
      const co = await webchatCompany(server);
      const { ready, refused } = await newVisitors(5, (i) => ({ base, ip: `203.0.113.${100 + i}` }), co.integrationId);
      expect(ready).toHaveLength(3);
      expect(refused).toHaveLength(2);
    } finally {
      await server.close();
    }
  });
});

describe('across instances sharing one NATS', () => {
  let nats: NatsServerHandle;
  let instances: TestInstances;

  beforeAll(async () => {
    nats = await startNatsServer();
    instances = await startTestInstances(2, {
      NATS_URL: nats.url,
      AUTH_RATE_LIMIT_PER_MINUTE: '1000',
      WEBCHAT_MAX_CONNECTIONS_PER_IP: '1000',
      WEBCHAT_NEW_VISITORS_PER_IP_PER_MINUTE: '6',
      WEBCHAT_MESSAGES_PER_INTEGRATION_PER_MINUTE: '10',
    });
  }, 60_000);
  afterAll(async () => {
    await instances?.close();
    await nats?.stop();
  });

  it('counts new visitors and messages cluster-wide: the sum over both instances respects each limit', async () => {
    const co = await webchatCompany(instances.servers[0]!);
    const { ready, refused } = await newVisitors(20, (i) => ({ base: instances.bases[i % 2]! }), co.integrationId);
    expect(ready).toHaveLength(6);
    expect(refused).toHaveLength(14);
    expect(refused.every(({ error }) => error.code === 'RATE_LIMITED')).toBe(true);

    const { acks, errors } = await burst(ready, 4, 'nats');
    expect(acks).toHaveLength(10);
    expect(errors).toHaveLength(14);
    expect(errors.every((e) => e.code === 'RATE_LIMITED')).toBe(true);
    expect(await storedMessages(instances.servers[0]!, ready.map((r) => r.ready.conversationId as string))).toBe(10);
  });
});
