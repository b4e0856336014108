import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { browserPrerequisites, dashboardPage, signUpByApi, startServerAndBrowser, withFailureScreenshot, type ServerAndBrowser, type SignedUp } from '../support/browser.js';

/**
 * Web chat identity verification set up in the dashboard, in real Chromium: an owner generates the identity
 * secret (shown once), then requires signed visitors. Needs the built dashboard (`npm run build`) and
 * /usr/bin/chromium.
 */

const UI_TIMEOUT = 15_000;

let stage: ServerAndBrowser;
let page: Page;
let owner: SignedUp;
let integrationId: number;
const pageErrors: string[] = [];

if (browserPrerequisites()) {
  beforeAll(async () => {
    stage = await startServerAndBrowser();
    owner = await signUpByApi(stage.base, { tag: 'identity', companyName: 'Identity Outfitters' });
    integrationId = (await owner.api('POST', '/api/integrations', { name: 'Site chat', connectorType: 'webchat', allowedOrigins: ['https://shop.example'] })).json.integration.id;
    page = await dashboardPage(stage.browser, { session: owner.session, timeoutMs: UI_TIMEOUT }, pageErrors);
  }, 60_000);

  afterAll(async () => {
    await stage?.close();
  });

  it('an owner generates the identity secret, sees it once, and requires signed visitors', async () => {
    await withFailureScreenshot(page, 'webchat-identity', async () => {
      await page.goto(`${stage.base}/#/integrations/${integrationId}`);
      const mode = page.getByTestId('identity-verification');
      await mode.waitFor();
      expect(await mode.isDisabled()).toBe(true);

      await page.getByTestId('generate-identity-secret').click();
      const secret = page.getByTestId('identity-secret-value');
      await expect.poll(async () => (await secret.textContent()) ?? '', { timeout: UI_TIMEOUT }).toMatch(/^idv_[A-Za-z0-9_-]{43}$/);
      const shown = (await secret.textContent())!;
      await page.getByRole('button', { name: 'Done' }).click();
      expect(await page.getByTestId('identity-secret-value').count()).toBe(0);

      await mode.selectOption('required');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await expect.poll(async () => (await owner.api('GET', `/api/integrations/${integrationId}`)).json.integration.identityVerification, { timeout: UI_TIMEOUT }).toBe('required');
      const integration = (await owner.api('GET', `/api/integrations/${integrationId}`)).json.integration;
      expect(integration.hasIdentitySecret).toBe(true);
      expect(JSON.stringify(integration)).not.toContain(shown);
      expect(pageErrors).toEqual([]);
    });
  });
}
