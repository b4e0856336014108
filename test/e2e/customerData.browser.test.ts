import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signWebhookBody } from '../../src/http/platformWebhooks/webhookSignature.js';
import { browserPrerequisites, dashboardBearer, dashboardPage, navLink, saveFailureScreenshot, signUpInDashboard, startServerAndBrowser, type ServerAndBrowser } from '../support/browser.js';
import type { TestServer } from '../support/testServer.js';

/**
 * A customer's data in the dashboard, in headless Chromium (docs/erasure.md): "Download data (JSON)" in the
 * customer panel saves the export as a file, and Settings → Data retention sets the company's period. Needs
 * `npm run build` and /usr/bin/chromium, like dashboard.browser.test.ts.
 */
const TIMEOUT = 90_000;
const SECRET = 'whsec_0123456789abcdef0123';

if (browserPrerequisites()) {
  let server: TestServer;
  let base: string;
  let stage: ServerAndBrowser;
  let page: Page;
  beforeAll(async () => {
    stage = await startServerAndBrowser();
    ({ server, base } = stage);
    page = await dashboardPage(stage.browser, { viewport: { width: 1400, height: 900 }, timeoutMs: 15_000 });
  });
  afterAll(async () => {
    await stage?.close();
  });

  const api = async (method: string, url: string, body?: unknown) => {
    const res = await server.app.inject({ method: method as 'GET', url, headers: { authorization: `Bearer ${await dashboardBearer(page)}` }, ...(body ? { payload: body as object } : {}) });
    return res.json();
  };

  describe("a customer's data", () => {
    it('downloads the export from the customer panel, and sets a retention period in Settings', { timeout: TIMEOUT }, async (ctx) => {
      ctx.onTestFailed(async () => {
        await saveFailureScreenshot(page, 'customer-data');
      });
      await signUpInDashboard(page, base, { companyName: 'Data Keepers', email: `data-${Date.now()}@example.com` });
      const { integration } = await api('POST', '/api/integrations', { name: 'Main', connectorType: 'msgplatform', webhookSecret: SECRET });
      const payload = JSON.stringify({ message_id: 'm-1', client_id: 'grace', channel_id: 1, transport: 'telegram', text: 'Hopscotch-Ferret-8841 my order', client: { id: 'grace', name: 'Grace Hopper' } });
      await server.app.inject({ method: 'POST', url: `/api/webhook/msgplatform/${integration.id}`, payload, headers: { 'content-type': 'application/json', 'x-webhook-signature': signWebhookBody(payload, SECRET) } });
      await expect.poll(async () => (await api('GET', '/api/conversations')).conversations?.length, { timeout: 15_000 }).toBe(1);
      const { conversations } = await api('GET', '/api/conversations');

      await page.goto(`${base}/#/conversations/${conversations[0].id}`);
      const panel = page.getByTestId('customer-panel');
      await expect.poll(() => panel.getByTestId('customer-name').textContent(), { timeout: 15_000 }).toBe('Grace Hopper');
      const [download] = await Promise.all([page.waitForEvent('download'), panel.getByRole('button', { name: 'Download data (JSON)' }).click()]);
      expect(download.suggestedFilename()).toBe(`customer-${conversations[0].customerId}.json`);
      const saved = JSON.parse(await readFile((await download.path())!, 'utf8'));
      expect(saved).toMatchObject({ customerId: conversations[0].customerId, erased: false, profile: { name: 'Grace Hopper' } });
      expect(JSON.stringify(saved.conversations)).toContain('Hopscotch-Ferret-8841');

      await navLink(page, 'Settings').click();
      await page.getByTestId('retention-days').fill('30');
      await page.getByTestId('retention-save').click();
      await expect.poll(async () => (await api('GET', '/api/settings/retention')).retention.conversationDays).toBe(30);
    });
  });
}
