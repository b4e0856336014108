import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { browserPrerequisites, dashboardPage, screenshotStep, signUpByApi, startServerAndBrowser, type ServerAndBrowser } from '../support/browser.js';
import { postPlatformWebhook } from '../support/platformWebhook.js';
import type { TestServer } from '../support/testServer.js';

/**
 * Search in the dashboard, in real headless Chromium against a real server: the top bar's search box finds a past
 * message, marks the matching words (customer text that looks like HTML stays text), and a hit opens its
 * conversation. On a phone the top bar has a search button instead of the box. Needs the built dashboard (`npm run build`) and /usr/bin/chromium.
 */

const SECRET = 'whsec_search_browser_0123456789ab';
const UI = 15_000;
const SCREENSHOTS = join(process.cwd(), 'test-results', 'screenshots');

let server: TestServer;
let base: string;
let stage: ServerAndBrowser;
let page: Page;
let bearer: string;
let integrationId: number;
const pageErrors: string[] = [];

let seq = 0;
async function deliver(clientId: string, name: string, text: string) {
  await postPlatformWebhook(base, integrationId, SECRET, { text, client_id: clientId, channel_id: 1, transport: 'telegram', message_id: `search-${seq++}`, client: { name } });
}

const step = screenshotStep('search', () => page, 60_000);

if (browserPrerequisites()) {
  beforeAll(async () => {
    stage = await startServerAndBrowser();
    ({ server, base } = stage);
    const owner = await signUpByApi(base, { tag: 'search', companyName: 'Fjord Supplies' });
    bearer = owner.bearer;
    integrationId = (await owner.api('POST', '/api/integrations', { name: 'Telegram', connectorType: 'msgplatform', webhookSecret: SECRET })).json.integration.id;
    await deliver('c-1', 'Ingrid Berg', 'Hi! Is the <img src=x onerror="window.__pwned=1"> kayak paddle still in stock?');
    for (let i = 0; i < 4; i++) await deliver(`c-${i + 2}`, `Customer ${i}`, `Question ${i} about delivery times`);
    await server.projections.waitForPosition((await server.adapters.eventStore.headPosition())!);

    page = await dashboardPage(stage.browser, { session: owner.session, timeoutMs: UI, colorScheme: 'light' }, pageErrors);
    mkdirSync(SCREENSHOTS, { recursive: true });
  });

  afterAll(async () => {
    await stage?.close();
  });

  step('the top bar search finds a past message, marks the words, and opens its conversation', async () => {
    await page.goto(`${base}/#/conversations`);
    await page.getByRole('heading', { level: 1, name: 'Conversations' }).waitFor();
    const box = page.getByRole('searchbox', { name: 'Search messages and customers' });
    await box.fill('kayak PADDLE');
    await box.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Search' }).waitFor();
    const hits = page.getByTestId('search-hit');
    await expect.poll(() => hits.count()).toBe(1);
    const hit = hits.first();
    await expect.poll(() => hit.locator('mark').allInnerTexts()).toEqual(['kayak', 'paddle']);
    // The customer's markup is shown as the text it is: no element was made from it, nothing ran.
    expect(await hit.innerText()).toContain('<img src=x onerror="window.__pwned=1">');
    expect(await page.locator('main img').count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await hit.innerText()).toContain('Ingrid Berg');
    await page.screenshot({ path: join(SCREENSHOTS, 'search.png'), animations: 'disabled' });

    await hit.click();
    await page.waitForURL(/#\/conversations\/[0-9a-f-]{36}$/);
    await page.getByText('kayak paddle still in stock?', { exact: false }).first().waitFor();
    await page.getByRole('heading', { level: 2, name: 'Ingrid Berg' }).waitFor();
  });

  step('every hit of a common word is listed; query syntax is just text, and no hit says so', async () => {
    await page.goto(`${base}/#/search?q=delivery`);
    const hits = page.getByTestId('search-hit');
    await expect.poll(() => hits.count()).toBe(4);
    await page.goto(`${base}/#/search?q=${encodeURIComponent('"NEAR(*')}`);
    await page.getByText('Nothing found for “"NEAR(*”').waitFor();
  });

  step('on a 390 px phone the top bar has a search button and the page its own box', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${base}/#/conversations`);
    await page.getByRole('heading', { level: 1, name: 'Conversations' }).waitFor();
    const button = page.getByRole('link', { name: 'Search', exact: true });
    const at = (await button.boundingBox())!;
    expect(at.x + at.width).toBeLessThanOrEqual(390);
    await button.click();
    await page.getByRole('heading', { level: 1, name: 'Search' }).waitFor();
    const box = page.getByRole('searchbox', { name: 'Search messages and customers' });
    expect((await box.boundingBox())!.width).toBeGreaterThan(300);
    await box.fill('delivery');
    await box.press('Enter');
    await expect.poll(() => page.getByTestId('search-hit').count()).toBe(4);
    expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBe(0);
    await page.screenshot({ path: join(SCREENSHOTS, 'search-mobile.png'), animations: 'disabled' });
    expect(pageErrors).toEqual([]);
  });
}
