import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wireCompany } from '../support/faultFixtures.js';
import { startFakeLlm, type FakeLlm } from '../support/fakeLlm.js';
import { startFakePlatform, type FakePlatform } from '../support/fakePlatform.js';
import { startTestServer, type TestServer } from '../support/testServer.js';

/**
 * Analytics through the real pipeline (webhook → reply worker → platform), with an LLM that fails: the message the
 * AI could not answer is a failed reply and a handoff "ai_unanswered"; a healthy company's reply is an AI reply,
 * with its credits attributed to the integration; neither company sees the other's numbers.
 */
let server: TestServer;
let base: string;
let platform: FakePlatform;
let failing: FakeLlm;
let healthy: FakeLlm;

beforeAll(async () => {
  platform = await startFakePlatform({ token: 'tok-analytics' });
  failing = await startFakeLlm();
  healthy = await startFakeLlm();
  server = await startTestServer({ ALLOW_PRIVATE_PLATFORM_URLS: 'true', REPLY_BURST_WINDOW_MS: '0', LLM_TIMEOUT_MS: '800', LLM_MAX_RETRIES: '0', LLM_RETRY_DELAYS_MS: '50' });
  base = await server.listen(0, '127.0.0.1');
}, 30_000);
afterAll(async () => {
  await server?.close();
  await Promise.all([platform?.close(), failing?.close(), healthy?.close()]);
});

describe('analytics with a failing LLM', () => {
  it('counts the unanswered message as a failed reply and a handoff; the healthy company as an AI reply with its credits', async () => {
    failing.failNext(100, 500);
    const broken = await wireCompany(base, { platformUrl: platform.url, platformToken: platform.token, llmUrl: failing.url, name: 'Broken' });
    const fine = await wireCompany(base, { platformUrl: platform.url, platformToken: platform.token, llmUrl: healthy.url, name: 'Fine' });
    expect(await broken.post({ clientId: 'an-fail-1', messageId: 'an-fail-m1', text: 'hello?' })).toBe(200);
    expect(await fine.post({ clientId: 'an-fine-1', messageId: 'an-fine-m1', text: 'hello' })).toBe(200);

    const totals = async (c: typeof broken, q = '') => (await c.call('GET', `/api/analytics${q}`)).body.totals;
    await expect.poll(async () => (await totals(broken)).unanswered, { timeout: 20_000, interval: 100 }).toBe(1);
    expect(await totals(broken)).toMatchObject({
      conversationsStarted: 1, customerMessages: 1, aiReplies: 0, repliesFailed: 1, handedOff: 1, aiResolved: 0, creditsSpentMicros: 0,
      handoffReasons: { ai_unanswered: 1, agent_handoff: 0, customer_request: 0, dialog_transferred: 0 },
      aiFirstResponse: { count: 0, p50Ms: null, p90Ms: null },
    });

    await expect.poll(async () => (await totals(fine)).aiReplies, { timeout: 20_000, interval: 100 }).toBe(1);
    await expect.poll(async () => (await totals(fine)).creditsSpentMicros, { timeout: 10_000, interval: 100 }).toBeGreaterThan(0);
    const fineTotals = await totals(fine);
    expect(fineTotals).toMatchObject({ conversationsStarted: 1, customerMessages: 1, aiReplies: 1, repliesFailed: 0, handedOff: 0 });
    expect(fineTotals.aiFirstResponse.count).toBe(1);
    expect((await totals(fine, `?integrationId=${fine.integrationId}`)).creditsSpentMicros).toBe(fineTotals.creditsSpentMicros);
    // Isolation: the broken company's failure is not in the fine company's numbers, nor the other way round.
    expect((await totals(broken)).aiReplies).toBe(0);
  }, 60_000);
});
