import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signWebhookBody } from '../../src/http/platformWebhooks/webhookSignature.js';
import { startFakeLlm, type FakeLlm } from '../support/fakeLlm.js';
import { startFakePlatform, type FakePlatform } from '../support/fakePlatform.js';
import { startNatsServer } from '../support/natsServer.js';
import { startTestInstances, type TestInstances } from '../support/testServer.js';

/**
 * The reply pipeline over NATS JetStream with two server instances sharing one store: reactors on both
 * publish every job (JetStream dedupes them), workers on both compete, and every message is answered once.
 */
const SECRET = 'whsec_nats_0123456789abcd';
const TOKEN = 'platform-token-nats';
let nats: Awaited<ReturnType<typeof startNatsServer>>;
let platform: FakePlatform;
let llm: FakeLlm;
let instances: TestInstances;
const replied: number[] = [0, 0];

beforeAll(async () => {
  nats = await startNatsServer();
  platform = await startFakePlatform({ token: TOKEN });
  llm = await startFakeLlm({ apiKey: 'sk-nats', reply: (body) => `Re: ${String(body.messages?.at(-1)?.content)}`, delayMs: 50 });
  // Each instance's log counts the reply jobs it finished.
  const repliesLoggedBy = (i: number) =>
    new Writable({
      write(chunk, _enc, cb) {
        for (const line of String(chunk).split('\n')) if (line.includes('"msg":"reply job done"') && line.includes('"result":"replied"')) replied[i]!++;
        cb();
      },
    });
  instances = await startTestInstances(
    2,
    { LOG_LEVEL: 'info', NATS_URL: nats.url, ALLOW_PRIVATE_PLATFORM_URLS: 'true', REPLY_BURST_WINDOW_MS: '0', AUTH_RATE_LIMIT_PER_MINUTE: '1000' },
    { logDestination: repliesLoggedBy },
  );
}, 60_000);

afterAll(async () => {
  await instances?.close();
  await nats?.stop();
  await platform?.close();
  await llm?.close();
});

async function api(base: string, method: string, path: string, body?: unknown, token?: string) {
  const res = await fetch(base + path, {
    method,
    headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: res.status === 204 ? null : await res.json() };
}

describe('reply pipeline over NATS JetStream with two instances', () => {
  it('answers each of 30 messages exactly once, whichever instance received it', async () => {
    const [a, b] = instances.bases as [string, string];
    const email = `nats-${Date.now()}@example.com`;
    expect((await api(a, 'POST', '/api/auth/register', { email, password: 'correct horse', companyName: 'Nats Co' })).status).toBe(201);
    const token = (await api(a, 'POST', '/api/auth/login', { email, password: 'correct horse' })).body.session.access_token;
    const agent = (await api(a, 'POST', '/api/agents', { name: 'Nat' }, token)).body.agent;
    expect((await api(a, 'PUT', '/api/llm-config', { provider: 'openai', baseUrl: llm.url, apiKey: 'sk-nats', model: 'gpt-4o-mini' }, token)).status).toBe(200);
    const integration = (
      await api(a, 'POST', '/api/integrations', { name: 'P', connectorType: 'msgplatform', apiUrl: platform.url, apiToken: TOKEN, webhookSecret: SECRET, agentId: agent.id }, token)
    ).body.integration;

    const n = 30;
    await Promise.all(
      Array.from({ length: n }, async (_, i) => {
        const body = JSON.stringify({ hook_type: 'inbox', type: 'from_client', message_id: `nats-${i}`, client_id: `c${i}`, channel_id: 1, transport: 'telegram', text: `question ${i}` });
        // Alternate instances; send every third message to both (a platform redelivery hitting another node).
        const targets = i % 3 === 0 ? [a, b] : [i % 2 ? a : b];
        for (const base of targets) {
          const res = await fetch(`${base}/api/webhook/msgplatform/${integration.id}`, {
            method: 'POST',
            body,
            headers: { 'content-type': 'application/json', 'x-webhook-signature': signWebhookBody(body, SECRET) },
          });
          expect(res.status).toBe(200);
        }
      }),
    );
    await platform.waitForMessages(n, 30_000);
    await new Promise((r) => setTimeout(r, 1500));
    const sent = platform.messages();
    expect(sent).toHaveLength(n);
    expect(new Set(sent.map((m) => m.client_id)).size).toBe(n);
    for (const m of sent) expect(m.text).toBe(`Re: question ${String(m.client_id).slice(1)}`);
    expect(llm.completionRequests).toHaveLength(n);
    // Both instances did work: the jobs were shared by competing consumers, none handled twice.
    expect(replied[0]! + replied[1]!).toBe(n);
    expect(replied[0]).toBeGreaterThan(0);
    expect(replied[1]).toBeGreaterThan(0);
    // Every stored reply is charged exactly once, although both instances' reactors saw every reply.
    const store = instances.servers[0]!.adapters.eventStore;
    await expect.poll(async () => (await store.readAll({ filter: { eventTypes: ['CreditsConsumed'] } })).length, { timeout: 10_000 }).toBe(n);
    const charged = (await store.readAll({ filter: { eventTypes: ['CreditsConsumed'] } })).map((e) => (e.data as { replyId: string }).replyId);
    expect(new Set(charged).size).toBe(n);
  }, 60_000);
});
