import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserPrerequisites, dashboardContext, launchBrowser, saveFailureScreenshot, signUpByApi, type SignedUp } from '../support/browser.js';
import { startTestServer, type TestServer } from '../support/testServer.js';

/**
 * The dashboard's shared flows (components/useConfirmedDelete, components/useSubmit), in headless Chromium:
 * a delete asks first, and when it fails the question stays open and the list keeps the row; a form that
 * fails says why, keeps what was typed and can be sent again; a form that leaves on success leaves.
 * Needs `npm run build` and /usr/bin/chromium, like dashboard.browser.test.ts.
 */
const TIMEOUT = 60_000;
const PASSWORD = 'correct horse battery';

if (browserPrerequisites()) {
  let server: TestServer;
  let base: string;
  let browser: Browser;
  let owner: SignedUp;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    server = await startTestServer();
    base = await server.listen(0, '127.0.0.1');
    browser = await launchBrowser();
    owner = await signUpByApi(base, { tag: 'form-flows', companyName: 'Form Flows', password: PASSWORD });
    context = await dashboardContext(browser, { session: owner.session });
    page = await context.newPage();
  }, 60_000);
  afterAll(async () => {
    await browser?.close().catch(() => {});
    await server?.close();
  });

  const toast = (text: string | RegExp) => page.getByTestId('toast').filter({ hasText: text });

  describe('a delete that asks first', () => {
    it('fails: the error is told, the question stays open and the row stays listed; Cancel closes it; a retry of another row removes that row', { timeout: TIMEOUT }, async (ctx) => {
      ctx.onTestFailed(() => void saveFailureScreenshot(page, 'form-flows-delete'));
      const hours = await owner.api('POST', '/api/canned-replies', { shortcut: 'hours', title: 'Opening hours', text: 'We are open 9 to 5.' });
      const returns = await owner.api('POST', '/api/canned-replies', { shortcut: 'returns', title: 'Returns', text: 'Send it back within 30 days.' });
      expect([hours.status, returns.status]).toEqual([201, 201]);

      await page.goto(`${base}/#/canned-replies`);
      const hoursRow = page.getByTestId('canned-reply-row').filter({ hasText: '/hours' });
      await hoursRow.waitFor();
      // Someone else deletes it while this page still lists it.
      expect((await owner.api('DELETE', `/api/canned-replies/${hours.json.cannedReply.id}`)).status).toBe(204);

      await page.getByRole('button', { name: 'Delete /hours', exact: true }).click();
      const dialog = page.getByRole('dialog', { name: 'Delete this canned reply?' });
      await dialog.getByText('/hours will no longer be offered in the reply box.').waitFor();
      await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
      await page.locator('.toast-error').waitFor();
      expect(await dialog.isVisible()).toBe(true);
      expect(await dialog.getByRole('button', { name: 'Delete', exact: true }).isEnabled()).toBe(true);
      expect(await toast('/hours deleted').count()).toBe(0);

      await dialog.getByRole('button', { name: 'Cancel', exact: true }).click();
      await dialog.waitFor({ state: 'hidden' });
      expect(await hoursRow.count()).toBe(1);

      await page.getByRole('button', { name: 'Delete /returns', exact: true }).click();
      await dialog.getByText('/returns will no longer be offered in the reply box.').waitFor();
      await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
      await toast('/returns deleted').waitFor();
      await page.getByTestId('canned-reply-row').filter({ hasText: '/returns' }).waitFor({ state: 'detached' });
      await dialog.waitFor({ state: 'hidden' });
      expect((await owner.api('GET', `/api/canned-replies/${returns.json.cannedReply.id}`)).status).toBe(404);
    });

    it('from an edit form: a delete that works goes back to the list', { timeout: TIMEOUT }, async (ctx) => {
      ctx.onTestFailed(() => void saveFailureScreenshot(page, 'form-flows-delete-from-form'));
      const created = await owner.api('POST', '/api/agents', { name: 'Doomed helper' });
      expect(created.status).toBe(201);
      const agentId = created.json.agent.id as string;

      await page.goto(`${base}/#/agents/${encodeURIComponent(agentId)}`);
      await page.getByRole('heading', { level: 1, name: 'Edit agent' }).waitFor();
      await page.getByRole('button', { name: 'Delete', exact: true }).click();
      const dialog = page.getByRole('dialog', { name: 'Delete this agent?' });
      await dialog.getByText('“Doomed helper” will stop answering.', { exact: false }).waitFor();
      await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
      await page.getByRole('heading', { level: 1, name: 'Agents' }).waitFor();
      await toast('Agent “Doomed helper” deleted').waitFor();
      expect(new URL(page.url()).hash).toBe('#/agents');
      expect(await page.getByTestId(`agent-card-${agentId}`).count()).toBe(0);
    });
  });

  describe('a form submission', () => {
    it('that stays on the page: a refusal is shown under the form, what was typed is kept, and a corrected send saves', { timeout: TIMEOUT }, async (ctx) => {
      ctx.onTestFailed(() => void saveFailureScreenshot(page, 'form-flows-stay'));
      expect((await owner.api('POST', '/api/canned-replies', { shortcut: 'taken', title: 'Taken', text: 'Already here.' })).status).toBe(201);
      await page.goto(`${base}/#/canned-replies`);
      await page.getByTestId('canned-reply-row').filter({ hasText: '/taken' }).waitFor();

      await page.getByLabel('Shortcut').fill('taken');
      await page.getByLabel('Title', { exact: true }).fill('Second try');
      await page.getByLabel('Text', { exact: true }).fill('A reply worth keeping.');
      const save = page.getByTestId('canned-save');
      await save.click();
      const form = page.locator('form').filter({ has: save });
      await form.getByRole('alert').waitFor();
      expect(await save.isEnabled()).toBe(true);
      expect(await page.getByLabel('Text', { exact: true }).inputValue()).toBe('A reply worth keeping.');

      await page.getByLabel('Shortcut').fill('kept');
      await save.click();
      await toast('/kept saved').waitFor();
      await page.getByTestId('canned-reply-row').filter({ hasText: '/kept' }).waitFor();
      expect(await form.getByRole('alert').count()).toBe(0);
    });

    it('that leaves on success: wrong credentials are told and free the button; the right ones sign in', { timeout: TIMEOUT }, async (ctx) => {
      const fresh = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const login = await fresh.newPage();
      ctx.onTestFailed(() => void saveFailureScreenshot(login, 'form-flows-login'));
      try {
        await login.goto(`${base}/#/login`);
        await login.getByLabel('Email').fill(owner.email);
        await login.getByLabel('Password').fill('not the password');
        const submit = login.getByRole('button', { name: 'Log in', exact: true });
        await submit.click();
        await login.getByRole('alert').filter({ hasText: 'Wrong email or password' }).waitFor();
        expect(await submit.isEnabled()).toBe(true);
        expect(await login.getByLabel('Email').inputValue()).toBe(owner.email);

        await login.getByLabel('Password').fill(PASSWORD);
        await submit.click();
        await login.getByRole('heading', { level: 1, name: 'Conversations', exact: true }).waitFor();
      } finally {
        await fresh.close();
      }
    });
  });
}
