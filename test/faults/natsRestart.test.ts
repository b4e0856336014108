import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wireCompany, type WiredCompany } from '../support/faultFixtures.js';
import { startFakeLlm, type FakeLlm } from '../support/fakeLlm.js';
import { startFakePlatform, type FakePlatform } from '../support/fakePlatform.js';
import { startNatsServer, type NatsServerHandle } from '../support/natsServer.js';
import { report, storeProblems } from '../support/storeCheck.js';
import { startTestServer, type TestServer } from '../support/testServer.js';

/** The NATS server is killed and restarted (same port, same JetStream store) while messages arrive. */
let nats: NatsServerHandle;
let server: TestServer;
let platform: FakePlatform;
let llm: FakeLlm;
let co: WiredCompany;
let base: string;

beforeAll(async () => {
  nats = await startNatsServer();
  platform = await startFakePlatform({ token: 'tok-nats-restart' });
  llm = await startFakeLlm({ delayMs: 20 });
  server = await startTestServer({ NATS_URL: nats.url, ALLOW_PRIVATE_PLATFORM_URLS: 'true', REPLY_BURST_WINDOW_MS: '0', SEND_RETRY_BACKOFF_MS: '200,500,1000,2000' });
  base = await server.listen(0, '127.0.0.1');
  co = await wireCompany(base, { platformUrl: platform.url, platformToken: platform.token, llmUrl: llm.url });
});
afterAll(async () => {
  await server?.close();
  await nats?.stop();
  await Promise.all([platform?.close(), llm?.close()]);
});

const sendsTo = (client: string) => platform.messages().filter((m) => m.client_id === client).length;

describe('fault: NATS restarted mid-run', () => {
  it('answers messages posted before, during and after the restart exactly once', async () => {
    const post = async (phase: string, i: number) => {
      expect(await co.post({ clientId: `${phase}-${i}`, messageId: `${phase}-m${i}`, text: `${phase} question ${i}` })).toBe(200);
      return `${phase}-${i}`;
    };
    const clients: string[] = [];
    for (let i = 0; i < 10; i++) clients.push(await post('before', i));
    await platform.waitForMessages(10, 15_000);

    const restarting = nats.restart({ downForMs: 2000 });
    await new Promise((r) => setTimeout(r, 200));
    // Webhooks are stored in the event store, so they are acknowledged while the bus is down.
    for (let i = 0; i < 10; i++) clients.push(await post('during', i));
    const readyz = async () => (await fetch(`${base}/readyz`)).status;
    await expect.poll(readyz, { timeout: 2000, interval: 100 }).toBe(503); // the bus is down: not ready
    await restarting;
    await expect.poll(readyz, { timeout: 10_000, interval: 100 }).toBe(200);
    for (let i = 0; i < 10; i++) clients.push(await post('after', i));

    await expect.poll(() => clients.filter((c) => sendsTo(c) === 0), { timeout: 45_000, interval: 250 }).toEqual([]);
    await new Promise((r) => setTimeout(r, 2000)); // redeliveries would land now
    expect(clients.filter((c) => sendsTo(c) !== 1)).toEqual([]);
    const replies = await server.adapters.eventStore.readAll({ filter: { eventTypes: ['AgentReplied'] } });
    expect(replies).toHaveLength(30);
    expect(new Set(replies.map((e) => e.stream)).size).toBe(30);
    expect(await storeProblems(server.adapters.eventStore)).toEqual([]);
    report(`nats-server SIGKILLed and restarted after 2 s (same port and store) between 10+10+10 messages: /readyz 503 while down and 200 after, all 30 answered exactly once (${llm.completionRequests.length} LLM calls), store consistent`);
  }, 90_000);
});
