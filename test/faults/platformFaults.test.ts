import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedEvent } from '../../src/ports/eventStore.js';
import { wireCompany, type WiredCompany } from '../support/faultFixtures.js';
import { startFakeLlm, type FakeLlm } from '../support/fakeLlm.js';
import { startFakePlatform, type FakePlatform } from '../support/fakePlatform.js';
import { report, storeProblems } from '../support/storeCheck.js';
import { startTestServer, type TestServer } from '../support/testServer.js';

/** The messaging platform fails sends: retried with backoff, delivered once, and a send that never works is recorded as failed. */
let server: TestServer;
let platform: FakePlatform;
let llm: FakeLlm;
let co: WiredCompany;

beforeAll(async () => {
  platform = await startFakePlatform({ token: 'tok-platform-faults' });
  llm = await startFakeLlm();
  server = await startTestServer({ ALLOW_PRIVATE_PLATFORM_URLS: 'true', REPLY_BURST_WINDOW_MS: '0', SEND_MAX_ATTEMPTS: '4', SEND_RETRY_BACKOFF_MS: '100,100,100' });
  const base = await server.listen(0, '127.0.0.1');
  co = await wireCompany(base, { platformUrl: platform.url, platformToken: platform.token, llmUrl: llm.url });
});
afterAll(async () => {
  await server?.close();
  await Promise.all([platform?.close(), llm?.close()]);
});

const streamOf = async (clientId: string) => {
  const started = await server.adapters.eventStore.readAll({ filter: { eventTypes: ['ConversationStarted'] } });
  const e = started.find((s) => (s.data as { customer: { clientId: unknown } }).customer.clientId === clientId);
  return e ? server.adapters.eventStore.readStream(e.stream) : [];
};
const count = (events: RecordedEvent[], type: string) => events.filter((e) => e.type === type).length;
const sendCalls = (clientId: string) => platform.received.filter((r) => r.path.endsWith('/v1/messages') && (r.body as { client_id?: unknown })?.client_id === clientId);

describe('fault: the platform answers 5xx, then 200', () => {
  it('delivers the reply once and records MessageDelivered once', async () => {
    platform.failNext(2, 503);
    expect(await co.post({ clientId: 'flaky-1', messageId: 'flaky-m1', text: 'hi there' })).toBe(200);
    await platform.waitForMessages(1, 10_000);
    await expect.poll(async () => count(await streamOf('flaky-1'), 'MessageDelivered'), { timeout: 5000 }).toBe(1);
    await new Promise((r) => setTimeout(r, 500)); // any stray retry would land now
    const events = await streamOf('flaky-1');
    expect(sendCalls('flaky-1')).toHaveLength(3);
    expect(platform.messages().filter((m) => m.client_id === 'flaky-1')).toEqual([expect.objectContaining({ text: 'Echo: hi there' })]);
    expect(count(events, 'AgentReplied')).toBe(1);
    expect(count(events, 'MessageDelivered')).toBe(1);
    expect(count(events, 'MessageDeliveryFailed')).toBe(0);
    report('platform answered 503 twice then 200: 3 send calls, 1 accepted message, MessageDelivered once, no failure recorded');
  }, 30_000);

  it('a platform that keeps failing: after SEND_MAX_ATTEMPTS the reply is recorded as failed with the reason, never delivered', async () => {
    platform.failNext(50, 500);
    expect(await co.post({ clientId: 'down-1', messageId: 'down-m1', text: 'hello' })).toBe(200);
    await expect.poll(async () => count(await streamOf('down-1'), 'MessageDeliveryFailed'), { timeout: 10_000 }).toBe(1);
    platform.failNext(0);
    const events = await streamOf('down-1');
    const failed = events.find((e) => e.type === 'MessageDeliveryFailed')!.data as { reason: string; attempts: number };
    expect(failed.attempts).toBe(4);
    expect(failed.reason).toMatch(/500/);
    expect(sendCalls('down-1')).toHaveLength(4);
    expect(count(events, 'MessageDelivered')).toBe(0);
    expect(await storeProblems(server.adapters.eventStore)).toEqual([]);
    report(`platform answering 500 to every send: 4 attempts (SEND_MAX_ATTEMPTS=4), MessageDeliveryFailed "${failed.reason}", nothing delivered`);
  }, 30_000);
});
