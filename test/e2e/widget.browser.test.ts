import { existsSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { signUp } from '../support/api.js';
import { launchBrowser, saveFailureScreenshot } from '../support/browser.js';
import { startTestServer, type TestServer } from '../support/testServer.js';

/**
 * The embeddable widget against the real service in headless Chromium: a shop page on another origin
 * embeds /widget.js, the visitor asks a question the knowledge base answers, reloads and keeps the
 * conversation, and a message typed while the service restarts is delivered once when it is back.
 */

const ENV = { REPLY_BURST_WINDOW_MS: '200' };
const KB = '# Shipping\n\nWe ship to Norway, Sweden and Denmark within 3 business days. Shipping is free above 50 EUR.';
const WIDGET = new URL('../../dist/widget/widget.js', import.meta.url).pathname;

let server: TestServer;
let port: number;
let base: string;
let shop: http.Server;
let shopUrl: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let integrationId: number;
const consoleLines: string[] = [];

beforeAll(async () => {
  if (!existsSync(WIDGET)) throw new Error('dist/widget/widget.js is missing: run `npm run build` first (npm test does it in pretest)');
  server = await startTestServer(ENV);
  base = (await server.listen(0, '127.0.0.1')).replace('localhost', '127.0.0.1');
  port = Number(new URL(base).port);

  // The shop: another origin (another port) embedding the widget.
  shop = http.createServer((req, res) => {
    if (req.url !== '/') {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Shop</title></head>
<body><h1>The shop</h1><p>Welcome.</p>
<script src="${base}/widget.js" data-integration-id="${integrationId}" data-title="Ask the shop" async></script>
</body></html>`);
  });
  await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
  shopUrl = `http://127.0.0.1:${(shop.address() as AddressInfo).port}/`;
  const shopOrigin = new URL(shopUrl).origin;
  expect(shopOrigin).not.toBe(new URL(base).origin);

  const co = await signUp(server, 'Widget Shop');
  const agent = await co.call('POST', '/api/agents', { name: 'Ava', systemPrompt: 'You are Ava.', handoffMessage: 'A colleague will reply soon.' });
  expect(agent.statusCode).toBe(201);
  expect((await co.call('POST', '/api/knowledge-base/documents', { title: 'Shipping', content: KB })).statusCode).toBe(201);
  const integration = await co.call('POST', '/api/integrations', {
    name: 'Shop chat',
    connectorType: 'webchat',
    agentId: agent.json().agent.id,
    allowedOrigins: [shopOrigin],
  });
  expect(integration.statusCode).toBe(201);
  integrationId = integration.json().integration.id;

  browser = await launchBrowser();
  context = await browser.newContext();
  page = await context.newPage();
  page.on('console', (m) => consoleLines.push(`[${m.type()}] ${m.text()}`));
  page.on('pageerror', (e) => consoleLines.push(`[pageerror] ${e.message}`));
});

afterAll(async () => {
  await context?.close().catch(() => {});
  await browser?.close().catch(() => {});
  await new Promise((resolve) => (shop ? shop.close(resolve) : resolve(undefined)));
  await server?.close();
});

const agentMessages = () => page.locator('mas-webchat .m[data-author="agent"]:not([data-greeting])');
const customerMessages = () => page.locator('mas-webchat .m[data-author="customer"]');

async function openChat() {
  await page.getByRole('button', { name: 'Open chat' }).click();
  await expect.poll(() => page.getByRole('textbox', { name: 'Message' }).isVisible()).toBe(true);
}

async function send(text: string) {
  await page.getByRole('textbox', { name: 'Message' }).fill(text);
  await page.getByRole('button', { name: 'Send' }).click();
}

async function receivedTexts(conversationId: string) {
  const events = await server.adapters.eventStore.readStream(`conversation-${conversationId}`);
  return events.filter((e) => e.type === 'MessageReceived').map((e) => (e.data as { text: string }).text);
}

describe('the widget on another origin', () => {
  it('asks, is answered from the knowledge base, keeps the history over a reload, and delivers a message typed during a restart once', async () => {
    onTestFailed(async ({ task }) => {
      const shot = await saveFailureScreenshot(page, `widget-${task.name}`);
      console.error(`widget test failed; screenshot: ${shot}\nbrowser console:\n${consoleLines.join('\n')}`);
    });

    await page.goto(shopUrl);
    await openChat();
    await expect.poll(() => page.evaluate(() => window.MessagingAgentWidget?.state().connected), { timeout: 10_000 }).toBe(true);

    // A question the knowledge base answers.
    await send('Do you ship to Norway?');
    await expect.poll(() => agentMessages().count(), { timeout: 15_000 }).toBe(1);
    expect(await agentMessages().first().textContent()).toContain('We ship to Norway');
    expect(await customerMessages().first().getAttribute('data-state')).toBe('sent');
    const conversationId = String(await page.evaluate(() => window.MessagingAgentWidget?.state().conversationId));
    expect(await receivedTexts(conversationId)).toEqual(['Do you ship to Norway?']);

    // A reload keeps the conversation.
    await page.reload();
    await openChat();
    await expect.poll(() => agentMessages().count(), { timeout: 10_000 }).toBe(1);
    expect(await customerMessages().allTextContents()).toEqual([expect.stringContaining('Do you ship to Norway?')]);
    expect(await agentMessages().first().textContent()).toContain('We ship to Norway');
    expect(String(await page.evaluate(() => window.MessagingAgentWidget?.state().conversationId))).toBe(conversationId);

    // The service restarts; the visitor writes meanwhile.
    const dataDir = server.dataDir;
    await server.stop();
    await expect.poll(() => page.evaluate(() => window.MessagingAgentWidget?.state().connected), { timeout: 10_000 }).toBe(false);
    await send('Is shipping free?');
    await expect.poll(() => customerMessages().count()).toBe(2);
    expect(await customerMessages().last().getAttribute('data-state')).toBe('sending');
    expect(await page.evaluate(() => window.MessagingAgentWidget?.state().queued)).toBe(1);

    server = await startTestServer(ENV, undefined, { dataDir });
    await server.listen(port, '127.0.0.1');

    await expect.poll(() => customerMessages().last().getAttribute('data-state'), { timeout: 30_000 }).toBe('sent');
    await expect.poll(() => agentMessages().count(), { timeout: 15_000 }).toBe(2);
    expect(await agentMessages().last().textContent()).toContain('Shipping is free above 50 EUR');
    expect(await page.evaluate(() => window.MessagingAgentWidget?.state().queued)).toBe(0);
    // Stored exactly once, in the same conversation.
    expect(await receivedTexts(conversationId)).toEqual(['Do you ship to Norway?', 'Is shipping free?']);
    // And once more after another reload: nothing duplicated on screen either.
    await page.reload();
    await openChat();
    await expect.poll(() => customerMessages().count(), { timeout: 10_000 }).toBe(2);
    expect(await agentMessages().count()).toBe(2);
  }, 90_000);
});
