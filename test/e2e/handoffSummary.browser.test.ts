import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { browserPrerequisites, dashboardPage, signUpByApi, startServerAndBrowser, withFailureScreenshot, type ServerAndBrowser } from '../support/browser.js';
import { postPlatformWebhook } from '../support/platformWebhook.js';

/**
 * The handoff summary in real Chromium: the builtin agent cannot answer a question, hands off, and whoever takes
 * over reads what the customer wants and why it was handed off, in the queue row and on the conversation.
 * Needs the built dashboard (`npm run build`) and /usr/bin/chromium.
 */

const SECRET = 'whsec_handoff_summary_browser_0123456789';
const UI_TIMEOUT = 15_000;
const QUESTION = 'Can I pay for the winter jacket in three instalments?';

let base: string;
let stage: ServerAndBrowser;
let page: Page;
let integrationId: number;
const pageErrors: string[] = [];

if (browserPrerequisites()) {
  beforeAll(async () => {
    stage = await startServerAndBrowser({ REPLY_BURST_WINDOW_MS: '0' });
    ({ base } = stage);
    const owner = await signUpByApi(base, { tag: 'summary', companyName: 'Summary Outfitters' });
    await owner.api('POST', '/api/knowledge-base/documents', { title: 'Shipping', content: 'We ship to Norway, Sweden and Denmark within 3 business days.' });
    const agent = (await owner.api('POST', '/api/agents', { name: 'Ava', handoffMessage: 'A colleague will answer shortly.' })).json;
    const integration = (await owner.api('POST', '/api/integrations', { name: 'Telegram line', connectorType: 'msgplatform', agentId: agent.agent.id, webhookSecret: SECRET })).json;
    integrationId = integration.integration.id;
    page = await dashboardPage(stage.browser, { session: owner.session, timeoutMs: UI_TIMEOUT }, pageErrors);
  }, 60_000);

  afterAll(async () => {
    await stage?.close();
  });

  it('the person taking over a handoff reads its summary: in the queue row, and on the conversation with what the AI tried and why', async () => {
    await withFailureScreenshot(page, 'handoff-summary', async () => {
      await page.goto(`${base}/#/conversations`);
      await page.getByTestId('view-tab-needs_human').click();
      await postPlatformWebhook(base, integrationId, SECRET, { text: QUESTION, client_id: 'summary-customer-1', channel_id: 1, transport: 'telegram' });

      const row = page.locator('.conversation-list [data-testid^="conversation-row-"]');
      await expect.poll(() => row.count(), { timeout: UI_TIMEOUT }).toBe(1);
      await expect.poll(() => row.getByTestId('handoff-summary-line').textContent(), { timeout: UI_TIMEOUT }).toBe(`Wants: “${QUESTION}”`);

      await row.click();
      const card = page.getByTestId('handoff-summary');
      await expect.poll(() => card.isVisible(), { timeout: UI_TIMEOUT }).toBe(true);
      expect(await page.getByTestId('handoff-summary-wants').textContent()).toBe(`“${QUESTION}”`);
      expect(await page.getByTestId('handoff-summary-why').textContent()).toBe('The AI had no confident answer: the knowledge base did not cover the question well enough');
      expect(await card.textContent()).toContain('The AI did not answer; the customer got the handoff message');
      expect(await card.textContent()).toContain('taken from the messages');
      expect(pageErrors).toEqual([]);
    });
  });
}
