import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserPrerequisites, dashboardContext, signUpByApi, type SignedUp } from '../support/browser.js';
import { startTestServer, type TestServer } from '../support/testServer.js';
import { reportWidgetFailure, startWidgetStage, type WidgetStage } from '../support/widgetPage.js';

/**
 * Business hours and CSAT in headless Chromium, against a server whose clock is injected: "now" is the coming
 * Saturday at 11:00 UTC (the real time moves it on second by second). A shop embeds the widget:
 *   - outside business hours (Mon–Fri 09:00–17:00 Berlin) the AI's handoff tells the visitor when people are
 *     back, and the dashboard's queue shows the conversation "After hours";
 *   - a closed conversation the visitor wrote back in shows the survey in the widget; the rating appears in Analytics.
 * Needs `npm run build` and /usr/bin/chromium.
 */

const KB = '# Shipping\n\nWe ship to Norway, Sweden and Denmark within 3 business days.';
const DAY_MS = 86_400_000;
/** The coming Saturday, 11:00 UTC (12:00 in Berlin): ahead of the real time, so tokens issued then look valid to the browser too. */
const saturday = (() => {
  const now = new Date();
  const days = ((6 - now.getUTCDay() + 7) % 7) || 7;
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) + days * DAY_MS + 11 * 3_600_000;
})();
const offsetMs = saturday - Date.now();

let server: TestServer;
let base: string;
let stage: WidgetStage;
let owner: SignedUp;
let dashboard: BrowserContext;
let page: Page;
let visitor: Page;

const open = [{ from: '09:00', to: '17:00' }];

if (browserPrerequisites()) {
  beforeAll(async () => {
    server = await startTestServer({ REPLY_BURST_WINDOW_MS: '100' }, undefined, { clock: { now: () => new Date(Date.now() + offsetMs) } });
    base = (await server.listen(0, '127.0.0.1')).replace('localhost', '127.0.0.1');
    stage = await startWidgetStage(base, { widgetTitle: 'Ask the shop' });
    owner = await signUpByApi(base, { tag: 'hours-csat', companyName: 'Hours & Ratings' });
    expect((await owner.api('POST', '/api/knowledge-base/documents', { title: 'Shipping', content: KB })).status).toBe(201);
    expect((await owner.api('PUT', '/api/settings/timezone', { timezone: 'Europe/Berlin' })).status).toBe(200);
    const hours = { enabled: true, weekly: { monday: open, tuesday: open, wednesday: open, thursday: open, friday: open, saturday: [], sunday: [] }, holidays: [] };
    expect((await owner.api('PUT', '/api/settings/business-hours', hours)).status).toBe(200);
    const agent = await owner.api('POST', '/api/agents', { name: 'Ava', handoffMessage: 'A colleague will reply.', afterHoursMessage: 'Our team is back {{back}}.' });
    expect(agent.status).toBe(201);
    const integration = await owner.api('POST', '/api/integrations', {
      name: 'Shop chat',
      connectorType: 'webchat',
      agentId: agent.json.agent.id,
      allowedOrigins: [stage.shop.origin],
      csat: { enabled: true, skipWithoutCustomerReply: true },
    });
    expect(integration.status).toBe(201);
    stage.shop.integrationId = integration.json.integration.id;
    dashboard = await dashboardContext(stage.browser, { session: owner.session });
    page = await dashboard.newPage();
    visitor = (await stage.newVisitor()).page;
  });

  afterAll(async () => {
    await dashboard?.close().catch(() => {});
    await stage?.close();
    await server?.close();
  });

  const agentMessages = () => visitor.locator('mas-webchat .m[data-author="agent"]:not([data-greeting])');
  async function send(text: string) {
    await visitor.getByRole('textbox', { name: 'Message' }).fill(text);
    await visitor.getByRole('button', { name: 'Send', exact: true }).click();
  }

  describe('business hours and CSAT in the browser', () => {
    it('on Saturday the AI hands off saying when the team is back, and the queue shows it after hours', { timeout: 60_000 }, async () => {
      reportWidgetFailure('hours', () => visitor, stage.consoleLines);
      await visitor.goto(stage.shop.url);
      await visitor.getByRole('button', { name: 'Open chat' }).click();
      await expect.poll(() => visitor.evaluate(() => window.MessagingAgentWidget?.state().connected), { timeout: 10_000 }).toBe(true);

      await send('Can you recommend a pizza topping?');
      await expect.poll(() => agentMessages().count(), { timeout: 15_000 }).toBe(1);
      expect(await agentMessages().first().textContent()).toMatch(/A colleague will reply\.\s*Our team is back Monday \d{1,2} \w+ at 09:00 \(Europe\/Berlin\)\./);

      await page.goto(`${base}/#/conversations`);
      await expect.poll(() => page.getByTestId('after-hours').count(), { timeout: 15_000 }).toBe(1);
      await page.goto(`${base}/#/settings`);
      await expect.poll(() => page.getByTestId('business-hours-status').textContent(), { timeout: 15_000 }).toContain('After hours');
    });

    it('a visitor who wrote back gets the survey when a teammate closes the conversation; the rating shows in Analytics', { timeout: 60_000 }, async () => {
      // The visitor writes back after the handoff reply (the conversation waits for a person): worth a survey.
      await send('Thanks, I will wait for Monday');
      await expect.poll(() => visitor.locator('mas-webchat .m[data-author="customer"][data-state="sent"]').count(), { timeout: 15_000 }).toBe(2);
      const conversationId = String(await visitor.evaluate(() => window.MessagingAgentWidget?.state().conversationId));
      expect((await owner.api('POST', `/api/conversations/${conversationId}/close`, {})).status).toBe(200);

      const survey = visitor.getByRole('group', { name: 'Rate this conversation' });
      await survey.waitFor({ timeout: 15_000 });
      expect(await survey.textContent()).toContain('How would you rate the help you got?');
      await visitor.getByRole('button', { name: 'Rate 4 out of 5' }).click();
      await visitor.getByRole('textbox', { name: 'Comment (optional)' }).fill('Quick, even on a Saturday');
      await visitor.getByRole('button', { name: 'Send rating' }).click();
      await expect.poll(() => survey.textContent(), { timeout: 10_000 }).toContain('Thanks for your rating (4/5)!');

      // The page's ranges end on the browser's today; the server's clock is ahead: a custom range to Saturday.
      await page.goto(`${base}/#/analytics`);
      await page.getByTestId('analytics-range').selectOption('custom');
      const day = new Date(saturday).toISOString().slice(0, 10);
      await page.getByTestId('analytics-to').fill(day);
      await page.getByTestId('analytics-from').fill(new Date(saturday - 6 * DAY_MS).toISOString().slice(0, 10));
      await expect.poll(() => page.getByTestId('csat-average').textContent(), { timeout: 15_000 }).toBe('4.00 / 5');
      expect(await page.getByTestId('csat-responses').textContent()).toContain('1 of 1 surveys');
      expect(await page.getByTestId('csat-by-agent').textContent()).toContain('Ava');
      expect(await page.getByTestId('csat-by-agent-version').textContent()).toContain('Ava · v1');
      expect(await page.getByTestId('csat-recent').textContent()).toContain('Quick, even on a Saturday');
    });
  });
}
