import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { browserPrerequisites, dashboardPage, launchBrowser, signUpByApi, withFailureScreenshot, type SignedUp } from '../support/browser.js';
import { startFakeLlm, type FakeLlm } from '../support/fakeLlm.js';
import { startFakePlatform, type FakePlatform } from '../support/fakePlatform.js';
import { postPlatformWebhook } from '../support/platformWebhook.js';
import { startTestServer, type TestServer } from '../support/testServer.js';

/**
 * The AI-backlog banner in real Chromium: the company's model is slow (it answers after the test), a customer's
 * message has waited past the threshold, and every page of the dashboard says the AI replies are delayed.
 * Needs the built dashboard (`npm run build`) and /usr/bin/chromium.
 */

const SECRET = 'whsec_ai_backlog_browser_0123456789abcdef';
const LLM_KEY = 'sk-ai-backlog-browser';
const PLATFORM_TOKEN = 'platform-token-ai-backlog-browser';
const UI_TIMEOUT = 15_000;

let clockOffsetMs = 0;
let llm: FakeLlm;
let platform: FakePlatform;
let server: TestServer;
let browser: Browser;
let base: string;
let owner: SignedUp;
let integrationId: number;
let page: Page;
const pageErrors: string[] = [];

if (browserPrerequisites()) {
  beforeAll(async () => {
    llm = await startFakeLlm({ apiKey: LLM_KEY, reply: 'Sure.', delayMs: 120_000 });
    platform = await startFakePlatform({ token: PLATFORM_TOKEN });
    server = await startTestServer(
      { ALLOW_PRIVATE_PLATFORM_URLS: 'true', REPLY_BURST_WINDOW_MS: '0', REPLY_MAX_DELAY_MS: '86400000', LLM_TIMEOUT_MS: '120000', LLM_MAX_RETRIES: '0' },
      undefined,
      { clock: { now: () => new Date(Date.now() + clockOffsetMs) } },
    );
    base = await server.listen(0, '127.0.0.1');
    browser = await launchBrowser();
    owner = await signUpByApi(base, { tag: 'aibacklog', companyName: 'Backlog Outfitters' });
    const agent = (await owner.api('POST', '/api/agents', { name: 'Ava', systemPrompt: 'You are Ava.' })).json;
    expect((await owner.api('PUT', '/api/llm-config', { provider: 'openai', baseUrl: llm.url, apiKey: LLM_KEY, model: 'gpt-4o-mini' })).status).toBe(200);
    const integration = (await owner.api('POST', '/api/integrations', { name: 'Telegram line', connectorType: 'msgplatform', agentId: agent.agent.id, apiUrl: platform.url, apiToken: PLATFORM_TOKEN, webhookSecret: SECRET })).json;
    integrationId = integration.integration.id;
    page = await dashboardPage(browser, { session: owner.session, timeoutMs: UI_TIMEOUT }, pageErrors);
  }, 60_000);

  afterAll(async () => {
    // The model's pending answers fail first, so no reply job holds the server open.
    await llm?.close();
    await browser?.close().catch(() => {});
    await server?.close();
    await platform?.close();
  });

  it('no banner while nothing is delayed; once a customer has waited past a minute, the banner says how many wait and for how long', async () => {
    await withFailureScreenshot(page, 'ai-backlog-banner', async () => {
      await page.goto(`${base}/#/conversations`);
      await expect.poll(() => page.getByRole('heading', { level: 1 }).count(), { timeout: UI_TIMEOUT }).toBeGreaterThan(0);
      expect(await page.getByTestId('ai-backlog').textContent()).toBe('');

      // The customer's message arrived 90 s ago (the server's clock, moved back for its arrival); the model is still thinking.
      clockOffsetMs = -90_000;
      await postPlatformWebhook(base, integrationId, SECRET, { text: 'Where is my parcel?', client_id: 'backlog-customer-1', channel_id: 1, transport: 'telegram' });
      clockOffsetMs = 0;
      await expect.poll(async () => (await owner.api('GET', '/api/ai-backlog')).json.aiBacklog.delayed, { timeout: UI_TIMEOUT }).toBe(true);

      // Any page shows it (the banner polls; a reload asks at once).
      await page.goto(`${base}/#/agents`);
      await page.reload();
      const banner = page.getByRole('status').filter({ hasText: 'AI replies are delayed' });
      await expect.poll(() => banner.textContent(), { timeout: UI_TIMEOUT }).toBe('AI replies are delayed: 1 conversation waiting, oldest 1 min');
      expect(pageErrors).toEqual([]);
    });
  }, 60_000);
}
