import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, createWebchatIntegration, signUp, useOpenAiLlm } from '../support/api.js';
import { startFakeLlm, type FakeLlm } from '../support/fakeLlm.js';
import { startTestServer, type TestServer } from '../support/testServer.js';
import { reportWidgetFailure, startWidgetStage, type WidgetStage, type WidgetVisitor } from '../support/widgetPage.js';

/**
 * What a shopper sees in the widget, in headless Chromium: the integration's greeting first; "Agent is
 * typing…" from the moment the message is taken until a slow model's answer arrives; and on a site the
 * integration does not allow, a final "Chat is not available on this site" instead of reconnecting forever.
 */


const GREETING = 'Hi! I am Ava. Ask me anything about shipping.';
const LLM_DELAY_MS = 2500;
const BURST_MS = 1000;

let server: TestServer;
let base: string;
let llm: FakeLlm;
let stage: WidgetStage;
let refusedUrl: string;
let visitor: WidgetVisitor;
let page: Page;

beforeAll(async () => {
  llm = await startFakeLlm({ delayMs: LLM_DELAY_MS, reply: 'We ship to Norway in 3 days.' });
  server = await startTestServer({ REPLY_BURST_WINDOW_MS: String(BURST_MS), ALLOW_PRIVATE_PLATFORM_URLS: 'true' });
  base = (await server.listen(0, '127.0.0.1')).replace('localhost', '127.0.0.1');

  stage = await startWidgetStage(base);
  const { shop } = stage;
  // The same page under another host name is another origin, and not allowed.
  refusedUrl = `http://localhost:${shop.port}/`;

  const co = await signUp(server, 'Widget UX');
  await useOpenAiLlm(co, llm.url);
  const agentId = await createAgent(co, { name: 'Ava', systemPrompt: 'You are Ava.', useKnowledgeBase: false });
  shop.integrationId = await createWebchatIntegration(co, agentId, [shop.origin], { greeting: GREETING });

  visitor = await stage.newVisitor();
  page = visitor.page;
});

afterAll(async () => {
  await stage?.close();
  await server?.close();
  await llm?.close();
});

const onFailure = () => reportWidgetFailure('webchat-ux', () => page, stage.consoleLines);

async function openChat() {
  await page.getByRole('button', { name: 'Open chat' }).click();
  await expect.poll(() => page.getByRole('textbox', { name: 'Message' }).isVisible()).toBe(true);
}
const typingShown = () => page.locator('mas-webchat .typing').isVisible();
const answers = () => page.locator('mas-webchat .m[data-author="agent"]:not([data-greeting])');

describe('the widget on an allowed site', () => {
  it('shows the greeting first, then "typing" from the message until the slow answer, without a gap', async () => {
    onFailure();
    await page.goto(stage.shop.url);
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
    const other = await visitor.context.newPage();
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
