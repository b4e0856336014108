import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, createWebchatIntegration, signUp } from '../support/api.js';
import { hostileString, nestedJson, pollutedJson } from '../support/arbitraries.js';
import { storeProblems } from '../support/storeCheck.js';
import { startTestServer, type TestServer } from '../support/testServer.js';
import { connectWebchat } from '../support/webchatClient.js';

/**
 * Random web-chat frames over a real WebSocket: every frame is answered with an `ack` or an `error` frame, the
 * socket stays usable (never closed with 1011), acknowledged messages are stored, and the store stays whole.
 */
const ORIGIN = 'http://shop.example';
let server: TestServer;
let base: string;
let integrationId: number;

beforeAll(async () => {
  // Limits out of the way: this test opens ~100 visitors from one IP in seconds (flood limits have their own tests).
  server = await startTestServer({
    REPLY_BURST_WINDOW_MS: '0',
    WEBCHAT_MESSAGES_PER_10S: '10000',
    WEBCHAT_MAX_CONNECTIONS_PER_IP: '1000',
    WEBCHAT_NEW_VISITORS_PER_IP_PER_MINUTE: '100000',
    WEBCHAT_NEW_VISITORS_PER_INTEGRATION_PER_MINUTE: '100000',
    WEBCHAT_MESSAGES_PER_IP_PER_MINUTE: '100000',
    WEBCHAT_MESSAGES_PER_INTEGRATION_PER_MINUTE: '100000',
  });
  base = await server.listen(0, '127.0.0.1');
  const co = await signUp(server, 'Chat Fuzz');
  const agentId = await createAgent(co, { name: 'Ava', handoffMessage: 'A colleague will reply soon.' });
  integrationId = await createWebchatIntegration(co, agentId, [ORIGIN]);
});
afterAll(async () => {
  await server?.close();
});

type Outgoing = { data: string | Buffer; binary: boolean };
const clientMessageId = fc.oneof(fc.stringMatching(/^[A-Za-z0-9_.:-]{1,100}$/), fc.string({ maxLength: 110 }), fc.jsonValue({ maxDepth: 1 }));
const frame: fc.Arbitrary<Outgoing> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ type: fc.constant('message'), text: fc.oneof(fc.string({ maxLength: 60 }), hostileString(60), fc.jsonValue({ maxDepth: 2 })), clientMessageId }, { requiredKeys: ['type'] }).map((f) => ({ data: JSON.stringify(f), binary: false })) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('hello'), visitorId: fc.jsonValue({ maxDepth: 1 }), visitorToken: fc.oneof(fc.string({ maxLength: 200 }), fc.jsonValue({ maxDepth: 1 })) }, { requiredKeys: ['type'] }).map((f) => ({ data: JSON.stringify(f), binary: false })) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => ({ data: JSON.stringify(v), binary: false })) },
  { weight: 1, arbitrary: nestedJson(100).map((v) => ({ data: JSON.stringify({ type: 'message', text: v, clientMessageId: 'n1' }), binary: false })) },
  { weight: 1, arbitrary: pollutedJson().map((t) => ({ data: t, binary: false })) },
  { weight: 2, arbitrary: hostileString(200).map((t) => ({ data: t, binary: false })) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 300 }).map((b) => ({ data: Buffer.from(b), binary: true })) },
  // Text frames carry valid UTF-8 (ws closes others with 1007 by RFC 6455; tested below).
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 300 }).map((t) => ({ data: Buffer.from(t, 'utf8'), binary: false })) },
);

describe('property: random web-chat frames over a real WebSocket', () => {
  it('each frame gets one ack or error frame, the socket stays usable, acked messages are stored, the store stays whole', async () => {
    const acked = new Map<string, string>();
    let run = 0;
    let sent = 0;
    const codes = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(fc.array(frame, { minLength: 1, maxLength: 8 }), async (frames) => {
        const client = await connectWebchat(base, integrationId, { origin: ORIGIN });
        try {
          expect(await client.hello()).toMatchObject({ type: 'ready' });
          const from = client.frames.length;
          for (const f of frames) client.ws.send(f.data, { binary: f.binary });
          sent += frames.length;
          // A valid message after the random ones: frames are handled in order, so its ack means all were.
          const sentinel = `sentinel-${run++}`;
          client.send({ type: 'message', text: 'still there?', clientMessageId: sentinel });
          expect(await client.waitFor((f) => f.clientMessageId === sentinel, 3000, from)).toMatchObject({ type: 'ack' });
          const answers = client.frames.slice(from).filter((f) => (f.type === 'ack' || f.type === 'error') && f.clientMessageId !== sentinel);
          expect(answers, JSON.stringify(client.frames.slice(from))).toHaveLength(frames.length);
          for (const a of answers) {
            if (a.type === 'ack') acked.set(a.messageId, a.clientMessageId);
            else {
              expect(['BAD_FRAME', 'VALIDATION_ERROR', 'RATE_LIMITED']).toContain(a.code);
              codes.set(a.code, (codes.get(a.code) ?? 0) + 1);
            }
          }
          expect(client.ws.readyState).toBe(client.ws.OPEN);
        } finally {
          await client.close();
        }
      }),
      { numRuns: 80 },
    );
    const stored = new Map(
      (await server.adapters.eventStore.readAll({ filter: { eventTypes: ['MessageReceived'] } })).map((e) => {
        const d = e.data as { messageId: string; clientMessageId?: string };
        return [d.messageId, d.clientMessageId] as const;
      }),
    );
    expect([...acked].filter(([messageId, cid]) => stored.get(messageId) !== cid)).toEqual([]);
    expect(await storeProblems(server.adapters.eventStore)).toEqual([]);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    process.stdout.write(`[property] ${sent} random web-chat frames on ${run} sockets: ${acked.size} acked (all stored), errors ${JSON.stringify(Object.fromEntries(codes))}, no socket closed, store consistent\n`);
  }, 120_000);

  it('a text frame that is not UTF-8 closes with 1007 (RFC 6455), not an internal error', async () => {
    const client = await connectWebchat(base, integrationId, { origin: ORIGIN });
    await client.hello();
    client.ws.send(Buffer.from([0x7b, 0x80, 0x7d]), { binary: false });
    expect((await client.closed).code).toBe(1007);
  });

  it('a frame over 16 KiB closes with 1009, not an internal error, and the next connection works', async () => {
    const client = await connectWebchat(base, integrationId, { origin: ORIGIN });
    await client.hello();
    client.ws.send(JSON.stringify({ type: 'message', text: 'x'.repeat(17 * 1024), clientMessageId: 'big' }));
    expect((await client.closed).code).toBe(1009);
    const next = await connectWebchat(base, integrationId, { origin: ORIGIN });
    await next.hello();
    expect(await next.message('hello again', 'after-big')).toMatchObject({ type: 'ack' });
    await next.close();
  });
});
