import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { browserPrerequisites, dashboardPage, signUpByApi, startServerAndBrowser, withFailureScreenshot, type ServerAndBrowser } from '../support/browser.js';
import { postPlatformWebhook } from '../support/platformWebhook.js';
import type { TestServer } from '../support/testServer.js';

/**
 * The handoff queue in real Chromium: a customer's question the builtin LLM cannot answer (empty knowledge
 * base) is handed off; the conversation shows up live in "Needs human" with its reason and wait time, the tab
 * title counts it, a teammate takes it (Assign to me), replies, and it leaves the queue.
 * Needs the built dashboard (`npm run build`) and /usr/bin/chromium.
 */

const SECRET = 'whsec_inbox_browser_0123456789abcdef';
const UI_TIMEOUT = 15_000;
/**
 * Every wait on the page: each one waits on the server (a list fetched, a live event, a read model), which takes
 * seconds on a loaded machine, past expect.poll's default second (a CI run at load 7–14 read 0 rows for 1).
 */
const UI = { timeout: UI_TIMEOUT };

let server: TestServer;
let base: string;
let stage: ServerAndBrowser;
let page: Page;
let integrationId: number;
let owner: Awaited<ReturnType<typeof signUpByApi>>;
const pageErrors: string[] = [];

if (browserPrerequisites()) {
  beforeAll(async () => {
    stage = await startServerAndBrowser({ REPLY_BURST_WINDOW_MS: '0' });
    ({ server, base } = stage);
    owner = await signUpByApi(base, { tag: 'inbox', companyName: 'Inbox Outfitters' });
    const agent = (await owner.api('POST', '/api/agents', { name: 'Ava', systemPrompt: 'You are Ava.', handoffMessage: 'A colleague will answer shortly.' })).json;
    const integration = (await owner.api('POST', '/api/integrations', { name: 'Telegram line', connectorType: 'msgplatform', agentId: agent.agent.id, webhookSecret: SECRET })).json;
    integrationId = integration.integration.id;

    page = await dashboardPage(stage.browser, { session: owner.session, timeoutMs: UI_TIMEOUT }, pageErrors);
  }, 60_000);

  afterAll(async () => {
    await stage?.close();
  });

  it('a handed-off conversation waits in "Needs human" with its reason and wait time; taken and answered, it leaves the queue', async () => {
    await withFailureScreenshot(page, 'inbox-needs-human', async () => {
      await page.goto(`${base}/#/conversations`);
      const queueLoaded = page.waitForResponse((res) => res.url().includes('/api/conversations?') && res.url().includes('view=needs_human'), UI);
      await page.getByTestId('view-tab-needs_human').click();
      // Before the customer writes, the page must be listening and its queue loaded: live events are not replayed
      // to a stream that opens after them, and a queue still loading lands over a row that arrived meanwhile (on a
      // loaded machine either took longer than the handoff, and the row never came: 0 rows, not 1).
      await (await queueLoaded).finished();
      await expect.poll(() => page.getByTestId('live-indicator').getAttribute('data-status'), UI).toBe('live');
      await expect.poll(() => page.getByTestId('view-count-needs_human').textContent(), UI).toBe('0');

      // The customer asks something the (empty) knowledge base cannot answer: the builtin LLM hands off.
      await postPlatformWebhook(base, integrationId, SECRET, { text: 'Do you sell gift cards for the winter collection?', client_id: 'inbox-customer-1', channel_id: 1, transport: 'telegram' });

      // Live, without a reload: the row appears in the queue with its wait time, the tab and the title count it.
      const row = page.locator('.conversation-list [data-testid^="conversation-row-"]');
      await expect.poll(() => row.count(), UI).toBe(1);
      await expect.poll(() => row.getByTestId('needs-human').textContent(), UI).toBe('Waiting under a minute');
      // The builtin agent had no confident answer: its own reason, not a handoff the model chose.
      await expect.poll(() => row.getByTestId('needs-human').getAttribute('title'), UI).toBe('The AI handed off (no confident answer)');
      await expect.poll(() => page.getByTestId('view-count-needs_human').textContent(), UI).toBe('1');
      await expect.poll(() => page.title(), UI).toMatch(/^\(1\) /);

      // A teammate opens it: the reason and the wait, then takes it.
      await row.click();
      await expect.poll(() => page.getByTestId('handoff').textContent(), UI).toContain('The AI handed off');
      await expect.poll(() => page.getByTestId('handoff-waiting').textContent(), UI).toBe('under a minute');
      await page.getByTestId('assign-to-me').click();
      await expect.poll(() => page.getByTestId('assignee-label').textContent(), UI).toBe('Assigned to you');

      // They reply: the customer no longer waits, the conversation leaves the queue, the title count goes.
      await page.getByLabel('Reply as operator').fill('Hi! Yes, gift cards are available in every store.');
      await page.getByRole('button', { name: 'Send' }).click();
      await expect.poll(() => page.getByTestId('handoff').count(), UI).toBe(0);
      await expect.poll(() => row.count(), UI).toBe(0);
      await expect.poll(() => page.getByTestId('view-count-needs_human').textContent(), UI).toBe('0');
      await expect.poll(() => page.title(), UI).not.toMatch(/^\(\d+\) /);

      // It is theirs now: in "Mine".
      await page.getByTestId('view-tab-mine').click();
      await expect.poll(() => row.count(), UI).toBe(1);
      await expect.poll(() => page.getByTestId('view-count-mine').textContent(), UI).toBe('1');

      // The audit timeline tells the story in words.
      await page.getByRole('tab', { name: 'Event history' }).click();
      await expect.poll(() => page.getByText('Taken by you.').count(), UI).toBe(1);
      expect(pageErrors).toEqual([]);
    });
  }, 90_000);

  it('a reply whose answer was lost, sent again, reaches the customer once: the same key on both attempts', async () => {
    await postPlatformWebhook(base, integrationId, SECRET, { text: 'Is the shop open on Sunday?', client_id: 'inbox-customer-lost', channel_id: 1, transport: 'telegram' });
    const conversations = async () => (await owner.api('GET', '/api/conversations')).json.conversations as { id: string; lastMessage?: { text: string } | null }[];
    await expect.poll(async () => (await conversations()).length, { timeout: UI_TIMEOUT }).toBe(2);
    const all = await conversations();
    const texts = await Promise.all(all.map(async (c) => ({ id: c.id, messages: (await owner.api('GET', `/api/conversations/${c.id}`)).json.messages as { author: string; text: string }[] })));
    const id = texts.find((c) => c.messages.some((m) => m.text === 'Is the shop open on Sunday?'))!.id;
    const keys: string[] = [];
    await page.route(`**/api/conversations/${id}/messages`, async (route) => {
      keys.push(route.request().headers()['idempotency-key'] ?? '');
      if (keys.length > 1) return route.continue();
      await route.fetch();
      await route.abort('connectionreset');
    });
    await withFailureScreenshot(page, 'inbox-lost-answer', async () => {
      await page.goto(`${base}/#/conversations/${id}`);
      await page.getByLabel('Reply as operator').fill('Yes, from 10 to 16.');
      await page.getByRole('button', { name: 'Send' }).click();
      await page.getByText('Could not reach the server').first().waitFor();
      expect(await page.getByLabel('Reply as operator').inputValue()).toBe('Yes, from 10 to 16.');
      await page.getByRole('button', { name: 'Send' }).click();
      await expect.poll(() => page.getByLabel('Reply as operator').inputValue(), { timeout: UI_TIMEOUT }).toBe('');
    });
    await page.unroute(`**/api/conversations/${id}/messages`);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^[0-9a-f]{32}$/);
    expect(keys[1]).toBe(keys[0]);
    const messages = (await owner.api('GET', `/api/conversations/${id}`)).json.messages as { author: string; text: string }[];
    expect(messages.filter((m) => m.author === 'operator').map((m) => m.text)).toEqual(['Yes, from 10 to 16.']);
    expect(pageErrors).toEqual([]);
  }, 60_000);
}
