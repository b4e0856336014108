import { DEFAULT_AGENT_HANDOFF_MESSAGE } from '../../src/domain/agents/events.js';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAgent, createWebchatIntegration, signUp, useOpenAiLlm } from '../support/api.js';
import { startFakeLlm, type FakeLlm } from '../support/fakeLlm.js';
import { startTestServer, type TestServer } from '../support/testServer.js';
import { reportWidgetFailure, startWidgetStage, type WidgetStage } from '../support/widgetPage.js';

/**
 * A streamed answer in the widget, in headless Chromium: with a model that writes slowly, the shopper sees the
 * answer grow in place before it is complete, then the final text exactly once; a partial whose answer never
 * comes (the model broke off for good) disappears.
 */

const ANSWER = 'We ship to Norway, Sweden and Denmark within three business days. Shipping is free above fifty euros.';

let server: TestServer;
let base: string;
let llm: FakeLlm;
let stage: WidgetStage;
let page: Page;

beforeAll(async () => {
  llm = await startFakeLlm({ reply: ANSWER, chunkChars: 4, chunkDelayMs: 60 });
  server = await startTestServer({ REPLY_BURST_WINDOW_MS: '0', ALLOW_PRIVATE_PLATFORM_URLS: 'true', LLM_MAX_RETRIES: '0', LLM_RETRY_DELAYS_MS: '20' });
  base = (await server.listen(0, '127.0.0.1')).replace('localhost', '127.0.0.1');
  stage = await startWidgetStage(base);

  const co = await signUp(server, 'Widget streaming');
  await useOpenAiLlm(co, llm.url);
  const agentId = await createAgent(co, { name: 'Ava', systemPrompt: 'You are Ava.', useKnowledgeBase: false });
  stage.shop.integrationId = await createWebchatIntegration(co, agentId, [stage.shop.origin]);
});

afterAll(async () => {
  await stage?.close();
  await server?.close();
  await llm?.close();
});

beforeEach(async () => {
  llm.reset();
  // A fresh context (its own storage): a new visitor and conversation per test.
  page = (await stage.newVisitor()).page;
  await page.goto(stage.shop.url);
  reportWidgetFailure('widget-streaming', () => page, stage.consoleLines);
});

async function ask(text: string) {
  await page.getByRole('button', { name: 'Open chat' }).click();
  await expect.poll(() => page.evaluate(() => window.MessagingAgentWidget?.state().connected), { timeout: 10_000 }).toBe(true);
  await page.getByRole('textbox', { name: 'Message' }).fill(text);
  await page.getByRole('button', { name: 'Send' }).click();
}

/** What the widget shows of the agent's answers right now (read in the page, at once). */
const shown = () =>
  page.evaluate(() => {
    const root = document.querySelector('mas-webchat')!.shadowRoot!;
    const agent = [...root.querySelectorAll<HTMLElement>('.m[data-author="agent"]:not([data-greeting])')];
    return agent.map((e) => ({ partial: e.hasAttribute('data-partial'), id: e.dataset.id ?? e.dataset.replyId ?? '', text: e.querySelector('.t')!.textContent ?? '' }));
  });

describe('a streamed answer in the widget', () => {
  it('grows in place before the answer completes, then shows the final text exactly once', async () => {
    await ask('Do you ship to Norway?');
    const partials: string[] = [];
    const started = Date.now();
    for (;;) {
      const now = await shown();
      const final = now.find((m) => !m.partial);
      if (final) break;
      const partial = now.find((m) => m.partial);
      if (partial && partial.text !== partials.at(-1)) partials.push(partial.text);
      expect(Date.now() - started).toBeLessThan(20_000);
      await new Promise((r) => setTimeout(r, 40));
    }
    // Several growing, incomplete states of the same text were on screen before the answer was complete.
    expect(partials.length).toBeGreaterThanOrEqual(3);
    // (The last state may hold the whole text before the stored message replaces it.)
    expect(partials.filter((text) => text.length < ANSWER.length).length).toBeGreaterThanOrEqual(3);
    for (const [i, text] of partials.entries()) {
      expect(ANSWER.startsWith(text)).toBe(true);
      if (i > 0) expect(text.length).toBeGreaterThan(partials[i - 1]!.length);
    }
    await expect.poll(async () => (await shown()).length).toBe(1);
    const [final] = await shown();
    expect(final).toMatchObject({ partial: false, text: ANSWER });
    // Stays that way: no second copy, no leftover partial.
    await new Promise((r) => setTimeout(r, 500));
    expect(await shown()).toEqual([final]);
    // The partial was rendered as text, the same element position (last in the log).
    expect(await page.locator('mas-webchat .log > .m').last().getAttribute('data-id')).toBe(final!.id);
  });

  it('a partial whose answer never comes (the model breaks off every time) is dropped, and the visitor gets the handoff message instead', async () => {
    llm.breakStreamNext(2, 8);
    await ask('Do you ship to Norway?');
    await expect.poll(async () => (await shown()).some((m) => m.partial), { timeout: 10_000, interval: 20 }).toBe(true);
    // Never silence: the broken partial goes, the agent's handoff message comes (the conversation waits for people).
    await expect
      .poll(async () => (await shown()).map((m) => ({ partial: m.partial, text: m.text })), { timeout: 15_000, interval: 50 })
      .toEqual([{ partial: false, text: DEFAULT_AGENT_HANDOFF_MESSAGE }]);
    expect(await page.locator('mas-webchat .typing').isVisible()).toBe(false);
  });
});
