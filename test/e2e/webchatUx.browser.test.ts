import { existsSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { signUp } from '../support/api.js';
import { launchBrowser, saveFailureScreenshot } from '../support/browser.js';
import { startFakeLlm, type FakeLlm } from '../support/fakeLlm.js';
import { startTestServer, type TestServer } from '../support/testServer.js';

/**
 * What a shopper sees in the widget, in headless Chromium: the integration's greeting first; "Agent is
 * typing…" from the moment the message is taken until a slow model's answer arrives; and on a site the
 * integration does not allow, a final "Chat is not available on this site" instead of reconnecting forever.
 */

const WIDGET = new URL('../../dist/widget/widget.js', import.meta.url).pathname;
const GREETING = 'Hi! I am Ava. Ask me anything about shipping.';
const LLM_DELAY_MS = 2500;
const BURST_MS = 1000;

let server: TestServer;
let base: string;
let llm: FakeLlm;
let shop: http.Server;
let allowedUrl: string;
let refusedUrl: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let integrationId: number;
const consoleLines: string[] = [];

beforeAll(async () => {
  if (!existsSync(WIDGET)) throw new Error('dist/widget/widget.js is missing: run `npm run build` first (npm test does it in pretest)');
  llm = await startFakeLlm({ delayMs: LLM_DELAY_MS, reply: 'We ship to Norway in 3 days.' });
  server = await startTestServer({ REPLY_BURST_WINDOW_MS: String(BURST_MS), ALLOW_PRIVATE_PLATFORM_URLS: 'true' });
  base = (await server.listen(0, '127.0.0.1')).replace('localhost', '127.0.0.1');

  shop = http.createServer((req, res) => {
    if (req.url !== '/') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Shop</title></head>
<body><h1>The shop</h1><script src="${base}/widget.js" data-integration-id="${integrationId}" async></script></body></html>`);
  });
  await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
  const shopPort = (shop.address() as AddressInfo).port;
  allowedUrl = `http://127.0.0.1:${shopPort}/`;
  // The same page under another host name is another origin, and not allowed.
  refusedUrl = `http://localhost:${shopPort}/`;

  const co = await signUp(server, 'Widget UX');
  expect((await co.call('PUT', '/api/llm-config', { provider: 'openai', baseUrl: llm.url, apiKey: 'sk-test', model: 'gpt-4o-mini' })).statusCode).toBe(200);
  const agent = await co.call('POST', '/api/agents', { name: 'Ava', systemPrompt: 'You are Ava.', useKnowledgeBase: false });
  expect(agent.statusCode).toBe(201);
  const integration = await co.call('POST', '/api/integrations', {
    name: 'Shop chat',
    connectorType: 'webchat',
    agentId: agent.json().agent.id,
    allowedOrigins: [new URL(allowedUrl).origin],
    greeting: GREETING,
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
  await llm?.close();
});

const onFailure = () =>
  onTestFailed(async ({ task }) => {
    const shot = await saveFailureScreenshot(page, `webchat-ux-${task.name}`);
    console.error(`widget test failed; screenshot: ${shot}\nbrowser console:\n${consoleLines.join('\n')}`);
  });

async function openChat() {
  await page.getByRole('button', { name: 'Open chat' }).click();
  await expect.poll(() => page.getByRole('textbox', { name: 'Message' }).isVisible()).toBe(true);
}
const typingShown = () => page.locator('mas-webchat .typing').isVisible();
const answers = () => page.locator('mas-webchat .m[data-author="agent"]:not([data-greeting])');

describe('the widget on an allowed site', () => {
  it('shows the greeting first, then "typing" from the message until the slow answer, without a gap', async () => {
    onFailure();
    await page.goto(allowedUrl);
    await openChat();
    await expect.poll(() => page.evaluate(() => window.MessagingAgentWidget?.state().connected), { timeout: 10_000 }).toBe(true);
    const first = page.locator('mas-webchat .log > .m').first();
    expect(await first.getAttribute('data-greeting')).toBe('');
    expect(await first.textContent()).toContain(GREETING);

    await page.getByRole('textbox', { name: 'Message' }).fill('Do you ship to Norway?');
    const sentAt = Date.now();
    await page.getByRole('button', { name: 'Send' }).click();
    // On while the burst window runs, well before the model is even called.
    await expect.poll(typingShown, { timeout: BURST_MS * 0.8, interval: 50 }).toBe(true);
    expect(Date.now() - sentAt).toBeLessThan(BURST_MS);
    expect(llm.completionRequests).toHaveLength(0);

    // Sampled (both at once, in the page) until the answer shows: visible at every sample before it.
    const sample = () =>
      page.evaluate(() => {
        const root = document.querySelector('mas-webchat')!.shadowRoot!;
        const typing = root.querySelector<HTMLElement>('.typing')!;
        return { typing: !typing.hidden, answered: root.querySelectorAll('.m[data-author="agent"]:not([data-greeting])').length > 0 };
      });
    const samples: boolean[] = [];
    for (let s = await sample(); !s.answered; s = await sample()) {
      samples.push(s.typing);
      expect(Date.now() - sentAt).toBeLessThan(15_000);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(Date.now() - sentAt).toBeGreaterThanOrEqual(BURST_MS + LLM_DELAY_MS - 200);
    expect(samples.length).toBeGreaterThan(20);
    expect(samples.map((on) => (on ? '+' : '-')).join('')).not.toContain('-');
    expect(await answers().first().textContent()).toContain('We ship to Norway in 3 days.');
    await expect.poll(typingShown).toBe(false);
    // The greeting is still first, and it is not a message of the conversation.
    expect(await page.locator('mas-webchat .log > .m').first().getAttribute('data-greeting')).toBe('');
  });
});

describe('the widget on a site the integration does not allow', () => {
  it('says "Chat is not available on this site" and stops reconnecting', async () => {
    onFailure();
    const other = await context.newPage();
    page = other;
    const sockets: string[] = [];
    other.on('websocket', (ws) => sockets.push(ws.url()));
    await other.goto(refusedUrl);
    await other.getByRole('button', { name: 'Open chat' }).click();
    const status = other.locator('mas-webchat .status');
    await expect.poll(() => status.textContent(), { timeout: 10_000 }).toBe('Chat is not available on this site.');
    expect(await status.isVisible()).toBe(true);
    expect(await other.getByRole('textbox', { name: 'Message' }).isDisabled()).toBe(true);
    // No retry: the widget's backoff would have reconnected several times within this wait.
    await new Promise((r) => setTimeout(r, 3000));
    expect(sockets).toHaveLength(1);
    expect(await status.textContent()).toBe('Chat is not available on this site.');
    expect(await other.evaluate(() => window.MessagingAgentWidget?.state().connected)).toBe(false);
  });
});
