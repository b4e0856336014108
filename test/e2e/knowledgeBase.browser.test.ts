import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserPrerequisites, dashboardBearer, dashboardPage, saveFailureScreenshot, signUpInDashboard, startServerAndBrowser, type ServerAndBrowser } from '../support/browser.js';
import type { TestServer } from '../support/testServer.js';

/**
 * The knowledge-base page in headless Chromium: a document's whole text is viewed and edited in a dialog; an edit
 * that lost to someone else's save shows the conflict and reloads their version. Needs `npm run build` and
 * /usr/bin/chromium, like dashboard.browser.test.ts.
 */
const TIMEOUT = 60_000;

if (browserPrerequisites()) {
  let server: TestServer;
  let base: string;
  let stage: ServerAndBrowser;
  let page: Page;
  beforeAll(async () => {
    stage = await startServerAndBrowser();
    ({ server, base } = stage);
    page = await dashboardPage(stage.browser, { timeoutMs: 15_000 });
  });
  afterAll(async () => {
    await stage?.close();
  });

  const dialog = () => page.getByRole('dialog');
  const token = () => dashboardBearer(page);

  describe('knowledge base: view and edit a document', () => {
    it('views the whole text, edits it, and the search finds the new text; a lost race shows the conflict and reloads', { timeout: TIMEOUT }, async (ctx) => {
      ctx.onTestFailed(async () => {
        await saveFailureScreenshot(page, 'knowledge-base-edit');
      });
      await signUpInDashboard(page, base, { companyName: 'Edit Outfitters', email: `kb-edit-${Date.now()}@example.com` });

      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Knowledge base', exact: true }).click();
      await page.getByLabel('Title', { exact: true }).fill('Delivery');
      await page.getByLabel('Content', { exact: true }).fill('Parcels to Norway arrive within 5 days.');
      await page.getByRole('button', { name: 'Add document', exact: true }).click();
      await page.getByTestId('kb-document-row').filter({ hasText: 'Delivery' }).waitFor();

      // View: the dialog shows the stored text.
      await page.getByRole('button', { name: 'View or edit Delivery', exact: true }).click();
      const content = dialog().getByLabel('Content', { exact: true });
      await expect.poll(() => content.inputValue()).toBe('Parcels to Norway arrive within 5 days.');
      await expect.poll(() => dialog().textContent()).toContain('Revision 1');

      // Edit and save: the search finds the new text, not the old.
      await content.fill('Parcels to Iceland arrive within 9 days.');
      await dialog().getByRole('button', { name: 'Save changes', exact: true }).click();
      await expect.poll(() => dialog().isVisible()).toBe(false);
      await page.getByLabel('Search the knowledge base').fill('Iceland');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await expect.poll(() => page.getByTestId('kb-search-result').first().textContent()).toContain('Parcels to Iceland arrive within 9 days.');

      // Someone else saves while the dialog is open: saving gets the conflict, and their version can be reloaded.
      await page.getByRole('button', { name: 'View or edit Delivery', exact: true }).click();
      await expect.poll(() => content.inputValue()).toBe('Parcels to Iceland arrive within 9 days.');
      const id = await page.evaluate(async (bearer) => {
        const list = await (await fetch('/api/knowledge-base/documents', { headers: { authorization: `Bearer ${bearer}` } })).json();
        const doc = list.documents[0];
        await fetch(`/api/knowledge-base/documents/${doc.id}`, {
          method: 'PUT',
          headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
          body: JSON.stringify({ title: 'Delivery', content: 'Their edit: Greenland in 12 days.', expectedRevision: 2 }),
        });
        return doc.id as string;
      }, await token());
      expect(id).toEqual(expect.any(String));
      await content.fill('My edit: Faroe Islands in 7 days.');
      await dialog().getByRole('button', { name: 'Save changes', exact: true }).click();
      await expect.poll(() => dialog().getByRole('alert').textContent()).toContain('Someone else changed this document');
      await dialog().getByRole('button', { name: 'Reload their version', exact: true }).click();
      await expect.poll(() => content.inputValue()).toBe('Their edit: Greenland in 12 days.');
      await expect.poll(() => dialog().textContent()).toContain('Revision 3');
    });
  });
}
