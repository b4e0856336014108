import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { browserPrerequisites, dashboardPage, dismissNotifications, journeySteps, screenshotStep, signUpByApi, startServerAndBrowser, type ServerAndBrowser, type SignedUp } from '../support/browser.js';
import { postPlatformWebhook } from '../support/platformWebhook.js';

/**
 * Issue 39, items 1 and 2, in real Chromium: a teammate sets a conversation's priority and snoozes it from the
 * conversation header, sees the SLA timer (first response due in …) in the header and on the inbox row, finds it
 * under Snoozed and brings it back, at 390, 1280 and 1920 px. Screenshots go to test-results/screenshots.
 * Needs the built dashboard (`npm run build`) and Chromium.
 */

const SECRET = 'whsec_triage_browser_0123456789abcdef';
const SCREENSHOTS = join(process.cwd(), 'test-results', 'screenshots');
const UI = 15_000;
const STEP = 60_000;
const none = { firstResponseMinutes: null, nextResponseMinutes: null, resolutionMinutes: null };

let stage: ServerAndBrowser;
let base: string;
let owner: SignedUp;
let page: Page;
let conversationId: string;
const pageErrors: string[] = [];

const shoot = async (name: string) => {
  await dismissNotifications(page);
  await page.screenshot({ path: join(SCREENSHOTS, name), animations: 'disabled' });
};
const step = screenshotStep('triage', () => page, STEP);
const row = () => page.getByTestId(`conversation-row-${conversationId}`);

if (browserPrerequisites()) {
  beforeAll(async () => {
    stage = await startServerAndBrowser({ REPLY_BURST_WINDOW_MS: '0' });
    base = stage.base;
    owner = await signUpByApi(base, { tag: 'triage', companyName: 'Triage Outfitters' });
    const policy = {
      enabled: true,
      targets: { urgent: { firstResponseMinutes: 15, nextResponseMinutes: 15, resolutionMinutes: 120 }, high: none, normal: { firstResponseMinutes: 240, nextResponseMinutes: 240, resolutionMinutes: 1440 }, low: none },
    };
    expect((await owner.api('PUT', '/api/settings/sla', policy)).status).toBe(200);
    const agent = (await owner.api('POST', '/api/agents', { name: 'Ava', systemPrompt: 'You are Ava.', handoffMessage: 'A colleague will answer shortly.' })).json;
    const integrationId = (await owner.api('POST', '/api/integrations', { name: 'Telegram line', connectorType: 'msgplatform', agentId: agent.agent.id, webhookSecret: SECRET })).json.integration.id;
    await postPlatformWebhook(base, integrationId, SECRET, { text: 'Hello, can I talk to a human please?', client_id: 'c-ola', channel_id: 1, transport: 'telegram', client: { name: 'Ola Nordmann' } });
    // The builtin agent hands the request for a person off: the first-response clock starts.
    const deadline = Date.now() + UI;
    for (;;) {
      const waiting = ((await owner.api('GET', '/api/conversations?view=needs_human')).json.conversations as { id: string; sla: unknown }[]).find((c) => c.sla);
      if (waiting) {
        conversationId = waiting.id;
        break;
      }
      if (Date.now() > deadline) throw new Error('the conversation never started its SLA clock');
      await new Promise((r) => setTimeout(r, 100));
    }
    mkdirSync(SCREENSHOTS, { recursive: true });
    page = await dashboardPage(stage.browser, { session: owner.session, timeoutMs: UI }, pageErrors);
  }, 90_000);

  afterAll(async () => {
    await stage?.close();
  });

  describe('priority, snooze and the SLA timer', () => {
    journeySteps('triage', () => page);

    step('the header shows the first-response timer, counting down from the normal target', async () => {
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.goto(`${base}/#/conversations/${conversationId}`);
      const timer = page.locator('.detail-header').getByTestId('sla-firstResponse');
      await expect.poll(() => timer.textContent(), { timeout: UI }).toMatch(/^First response due in 3h 5\dm|^First response due in 4h$/);
      await expect.poll(() => row().getByTestId('sla-firstResponse').textContent(), { timeout: UI }).toMatch(/^SLA due in /);
    });

    step('setting the priority to urgent shows on the row and moves the timer to the urgent target', async () => {
      await page.locator('.detail-header').getByTestId('priority-select').selectOption('urgent');
      await expect.poll(() => row().getByTestId('priority').textContent(), { timeout: UI }).toBe('Urgent');
      await expect.poll(() => page.locator('.detail-header').getByTestId('sla-firstResponse').textContent(), { timeout: UI }).toMatch(/^First response due in 1[45]m$/);
      const events = (await owner.api('GET', `/api/conversations/${conversationId}/events`)).json.events as { type: string }[];
      expect(events.map((e) => e.type)).toContain('ConversationPrioritized');
    });

    for (const width of [390, 1280, 1920]) {
      step(`at ${width} px the header's priority, snooze and SLA timer fit without scrolling sideways`, async () => {
        await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
        await page.goto(`${base}/#/conversations/${conversationId}`);
        const triage = page.locator('.detail-header .triage');
        await expect.poll(() => triage.getByTestId('sla-firstResponse').isVisible(), { timeout: UI }).toBe(true);
        expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
        await shoot(`triage-header-${width}.png`);
      });
    }

    step('snoozing for an hour takes it out of Needs human into Snoozed; Unsnooze brings it back', async () => {
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.goto(`${base}/#/conversations/${conversationId}`);
      await page.locator('.detail-header').getByTestId('snooze-select').selectOption('1h');
      await expect.poll(() => page.locator('.detail-header').getByTestId('snoozed').isVisible(), { timeout: UI }).toBe(true);
      await page.getByTestId('view-tab-snoozed').click();
      await expect.poll(() => row().isVisible(), { timeout: UI }).toBe(true);
      expect(await row().getByTestId('row-snoozed').textContent()).toBe('Snoozed');
      await shoot('triage-snoozed-1280.png');
      await page.getByTestId('view-tab-needs_human').click();
      await expect.poll(() => row().count(), { timeout: UI }).toBe(0);
      await page.locator('.detail-header').getByTestId('unsnooze').click();
      await expect.poll(() => page.locator('.detail-header').getByTestId('snooze-select').isVisible(), { timeout: UI }).toBe(true);
      await page.reload();
      await page.getByTestId('view-tab-needs_human').click();
      await expect.poll(() => row().isVisible(), { timeout: UI }).toBe(true);
      expect(pageErrors).toEqual([]);
    });
  });
}
