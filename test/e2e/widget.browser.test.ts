import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, createWebchatIntegration, signUp } from '../support/api.js';
import { startTestServer, type TestServer } from '../support/testServer.js';
import { reportWidgetFailure, startWidgetStage, type WidgetStage } from '../support/widgetPage.js';

/**
 * The embeddable widget against the real service in headless Chromium: a shop page on another origin
 * embeds /widget.js, the visitor asks a question the knowledge base answers, reloads and keeps the
 * conversation, and a message typed while the service restarts is delivered once when it is back.
 */

const ENV = { REPLY_BURST_WINDOW_MS: '200' };
const KB = '# Shipping\n\nWe ship to Norway, Sweden and Denmark within 3 business days. Shipping is free above 50 EUR.';

let server: TestServer;
let port: number;
let base: string;
let stage: WidgetStage;
let page: Page;

beforeAll(async () => {
  server = await startTestServer(ENV);
  base = (await server.listen(0, '127.0.0.1')).replace('localhost', '127.0.0.1');
  port = Number(new URL(base).port);

  stage = await startWidgetStage(base, { widgetTitle: 'Ask the shop' });
  const { shop } = stage;
  expect(shop.origin).not.toBe(new URL(base).origin);

  const co = await signUp(server, 'Widget Shop');
  const agentId = await createAgent(co, { name: 'Ava', systemPrompt: 'You are Ava.', handoffMessage: 'A colleague will reply soon.' });
  expect((await co.call('POST', '/api/knowledge-base/documents', { title: 'Shipping', content: KB })).statusCode).toBe(201);
  shop.integrationId = await createWebchatIntegration(co, agentId, [shop.origin]);

  page = (await stage.newVisitor()).page;
});

afterAll(async () => {
  await stage?.close();
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
    reportWidgetFailure('widget', () => page, stage.consoleLines);

    await page.goto(stage.shop.url);
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
