import { createHmac } from 'node:crypto';
import { existsSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { launchBrowser, saveFailureScreenshot } from '../support/browser.js';
import { startTestServer, uniqueEmail, type TestServer } from '../support/testServer.js';

/**
 * The dashboard's Webhook logs page (all integrations, live, payload with secrets redacted, link to the
 * conversation) and the web-chat integration page's greeting preview, in headless Chromium.
 */

const DASHBOARD = new URL('../../dist/dashboard/index.html', import.meta.url).pathname;
const SECRET = 'whsec_page_0123456789abcdef';
const PLANTED = 'tok_PLANTED_in_the_body_42';

let server: TestServer;
let base: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let bearer: string;
const ids: Record<string, number> = {};

const call = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${bearer}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, json: (await res.json().catch(() => null)) as any };
};

let n = 0;
async function deliver(integrationId: number, extra: Record<string, unknown> = {}) {
  const body = JSON.stringify({ text: `Hello ${n}`, client_id: `page-${n++}`, channel_id: 1, transport: 'telegram', ...extra });
  const signature = `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
  const res = await fetch(`${base}/api/webhook/msgplatform/${integrationId}`, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-webhook-signature': signature } });
  expect(res.status).toBe(200);
}

beforeAll(async () => {
  if (!existsSync(DASHBOARD)) throw new Error('dist/dashboard is missing: run `npm run build` first');
  server = await startTestServer({ REPLY_BURST_WINDOW_MS: '50' });
  base = (await server.listen(0, '127.0.0.1')).replace('localhost', '127.0.0.1');
  const email = uniqueEmail('logs-page');
  await fetch(`${base}/api/auth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: 'correct horse', companyName: 'Logs page' }) });
  const login = await (await fetch(`${base}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: 'correct horse' }) })).json();
  bearer = login.session.access_token;
  for (const name of ['Telegram shop', 'WhatsApp shop']) {
    const created = await call('POST', '/api/integrations', { name, connectorType: 'msgplatform', webhookSecret: SECRET });
    ids[name] = created.json.integration.id;
  }
  ids.chat = (await call('POST', '/api/integrations', { name: 'Site chat', connectorType: 'webchat', allowedOrigins: ['https://shop.example'], greeting: 'Hello from the shop' })).json.integration.id;
  await deliver(ids['Telegram shop']!);
  await deliver(ids['WhatsApp shop']!);

  browser = await launchBrowser();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.addInitScript((session) => localStorage.setItem('mas.session', JSON.stringify(session)), login.session);
  page = await context.newPage();
});

afterAll(async () => {
  await context?.close().catch(() => {});
  await browser?.close().catch(() => {});
  await server?.close();
});

const rows = () => page.getByTestId('webhook-log-row');

describe('Webhook logs page', () => {
  it('lists every integration, shows a new delivery live, its redacted payload, and opens its conversation', async () => {
    onTestFailed(async ({ task }) => void (await saveFailureScreenshot(page, `webhook-logs-${task.name}`)));
    await page.goto(`${base}/#/webhook-logs`);
    await expect.poll(() => rows().count(), { timeout: 10_000 }).toBe(2);
    const table = page.getByRole('table');
    expect(await table.textContent()).toContain('Telegram shop');
    expect(await table.textContent()).toContain('WhatsApp shop');

    // Live: no reload, no Refresh button.
    await deliver(ids['WhatsApp shop']!, { text: 'Secret stuff', api_token: PLANTED });
    await expect.poll(() => rows().count(), { timeout: 10_000 }).toBe(3);

    const newest = rows().first();
    await newest.getByRole('button', { name: 'Payload' }).click();
    const payload = page.getByTestId('webhook-log-payload');
    await expect.poll(() => payload.textContent(), { timeout: 10_000 }).toContain('Secret stuff');
    const shown = (await payload.textContent())!;
    expect(shown).toContain('"api_token": "[redacted]"');
    expect(shown).toContain('x-webhook-signature: [redacted]');
    expect(shown).not.toContain(PLANTED);
    expect(shown).not.toContain(SECRET);

    await newest.getByTestId('webhook-log-conversation').click();
    await expect.poll(() => page.url()).toMatch(/#\/conversations\/[0-9a-f-]{36}$/);
  });

  it('narrows to one integration', async () => {
    await page.goto(`${base}/#/webhook-logs?integration=${ids['Telegram shop']}`);
    await expect.poll(() => rows().count(), { timeout: 10_000 }).toBe(1);
  });
});

describe('web-chat integration page', () => {
  it('previews the widget with the greeting as typed', async () => {
    onTestFailed(async ({ task }) => void (await saveFailureScreenshot(page, `greeting-preview-${task.name}`)));
    await page.goto(`${base}/#/integrations/${ids.chat}`);
    const field = page.getByTestId('webchat-greeting');
    await expect.poll(() => field.inputValue(), { timeout: 10_000 }).toBe('Hello from the shop');
    const frame = page.frameLocator('[data-testid="webchat-preview"]');
    const greeting = frame.locator('mas-webchat .m[data-greeting]');
    await expect.poll(() => greeting.textContent(), { timeout: 10_000 }).toContain('Hello from the shop');
    await field.fill('Welcome! Ask us about delivery times.');
    await expect.poll(() => greeting.textContent(), { timeout: 10_000 }).toContain('Welcome! Ask us about delivery times.');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(async () => (await call('GET', `/api/integrations/${ids.chat}`)).json.integration.greeting, { timeout: 10_000 }).toBe(
      'Welcome! Ask us about delivery times.',
    );
  });
});
