import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { browserPrerequisites, dashboardPage, navLink, pageHeading, signUpByApi, startServerAndBrowser, withFailureScreenshot, type ServerAndBrowser, type SignedUp } from '../support/browser.js';

/**
 * A teammate's own email notifications in real Chromium: the Notifications page shows the defaults, says that no
 * email is sent without SMTP, and keeps the choices saved (read back through the API and after a reload).
 * Needs the built dashboard (`npm run build`) and /usr/bin/chromium.
 */

const UI_TIMEOUT = 15_000;
let base: string;
let stage: ServerAndBrowser;
let page: Page;
let owner: SignedUp;
const pageErrors: string[] = [];

if (browserPrerequisites()) {
  beforeAll(async () => {
    stage = await startServerAndBrowser({});
    ({ base } = stage);
    owner = await signUpByApi(base, { tag: 'notify', companyName: 'Notify Outfitters' });
    page = await dashboardPage(stage.browser, { session: owner.session, timeoutMs: UI_TIMEOUT }, pageErrors);
  }, 60_000);

  afterAll(async () => {
    await stage?.close();
  });

  it('the teammate switches off assignment emails and sets the waiting time; the choices are kept', async () => {
    await withFailureScreenshot(page, 'notifications', async () => {
      await page.goto(`${base}/#/conversations`);
      await navLink(page, 'Notifications').click();
      await pageHeading(page, 'Notifications').waitFor();
      const assigned = page.getByRole('switch', { name: 'When a conversation is assigned to me' });
      await expect.poll(() => assigned.isChecked()).toBe(true);
      expect(await page.getByTestId('email-unavailable').isVisible()).toBe(true);

      await assigned.uncheck();
      await page.getByLabel('After waiting (minutes)').fill('45');
      await page.getByRole('button', { name: 'Save' }).click();
      await expect.poll(async () => (await owner.api('GET', '/api/me/notifications')).json.notifications).toMatchObject({ assigned: false, handoffWaiting: true, handoffWaitingMinutes: 45 });

      await page.reload();
      await expect.poll(() => page.getByRole('switch', { name: 'When a conversation is assigned to me' }).isChecked()).toBe(false);
      expect(await page.getByLabel('After waiting (minutes)').inputValue()).toBe('45');
      expect(pageErrors).toEqual([]);
    });
  });
}
