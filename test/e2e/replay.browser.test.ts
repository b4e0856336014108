import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { browserPrerequisites, dashboardContext, launchBrowser, signUpByApi, withFailureScreenshot } from '../support/browser.js';
import { seedConversation } from '../support/replayFixtures.js';
import { startTestServer, type TestServer } from '../support/testServer.js';

/**
 * Replay evaluation in real Chromium: the owner starts a draft from an existing agent, edits its prompt, picks a
 * past conversation, sees the (free, builtin) estimate, confirms, watches it complete and reads the comparison —
 * the customer's message, the recorded answer and the draft's, each with its sources — at 1280 and 390 px.
 * Needs the built dashboard (`npm run build`) and Chromium.
 */
const UI_TIMEOUT = 15_000;

let server: TestServer;
let base: string;
let browser: Browser;
const pageErrors: string[] = [];

if (browserPrerequisites()) {
  beforeAll(async () => {
    server = await startTestServer();
    base = await server.listen(0, '127.0.0.1');
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close().catch(() => {});
    await server?.close();
  });

  it('runs a small replay with the builtin provider and shows the comparison, usable at 1280 and 390 px', async () => {
    const context = await dashboardContext(browser, { timeoutMs: UI_TIMEOUT });
    const page = await context.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    let replayUrl = '';
    await withFailureScreenshot(page, 'replay-1280', async () => {
      await page.goto(`${base}/#/register`);
      await page.getByLabel('Your name').fill('Owen Owner');
      await page.getByLabel('Company name').fill('Replay Outfitters');
      await page.getByLabel('Email').fill('owner@replay.example');
      await page.getByLabel('Password').fill('owner password');
      await page.getByRole('button', { name: 'Sign up' }).click();
      await page.getByRole('heading', { name: 'Conversations', level: 1 }).waitFor();
      const session = await page.evaluate(() => JSON.parse(localStorage.getItem('mas.session') ?? '{}') as { access_token: string });
      const api = async (method: string, path: string, body?: unknown) => {
        const res = await fetch(`${base}${path}`, { method, headers: { 'content-type': 'application/json', authorization: `Bearer ${session.access_token}` }, body: body === undefined ? undefined : JSON.stringify(body) });
        expect(res.status, `${method} ${path}`).toBeLessThan(300);
        return res.json();
      };
      const me = await api('GET', '/api/auth/me');
      await api('POST', '/api/agents', { name: 'Ava', systemPrompt: 'You are Ava of Replay Outfitters.', useKnowledgeBase: false });
      const companyId = (me.company?.companyId ?? me.user?.companyId) as string;
      expect(companyId).toMatch(/^[0-9a-f-]{36}$/);
      const provenance = { sources: [{ documentId: 'doc-shipping', title: 'Shipping policy', chunkIndex: 0, score: 0.8 }], latencyMs: 35, costMicros: 0, usageEstimated: false };
      await seedConversation(server.adapters.eventStore, companyId, [
        { customer: ['Do you ship kayaks to Norway?'], answer: { agent: 'Yes, we ship to Norway within 3 days.', provenance } },
        { customer: ['Great, thanks!'], answer: { operator: 'You are welcome!' } },
      ], 'Ingrid Berg');
      await seedConversation(server.adapters.eventStore, companyId, [{ customer: ['Unrelated question'] }], 'Ola Nordmann');

      await page.getByRole('link', { name: 'Replay' }).click();
      await page.getByRole('heading', { name: 'Replay', level: 1 }).waitFor();
      await page.getByLabel('Start from agent').selectOption({ label: 'Ava' });
      await expect.poll(() => page.getByLabel('System prompt').inputValue()).toBe('You are Ava of Replay Outfitters.');
      await page.getByLabel('System prompt').fill('You are Ava of Replay Outfitters. Mention free shipping.');
      await page.getByLabel('Filter').fill('ingrid');
      await page.getByRole('checkbox', { name: /Ingrid Berg/ }).check();
      await page.getByRole('button', { name: 'Estimate' }).click();
      await expect.poll(() => page.getByTestId('replay-estimate').innerText()).toMatch(/2 messages .*\$0\.00.*free/s);
      await page.getByRole('button', { name: /Confirm \$0\.00 and start/ }).click();

      await expect.poll(() => page.getByTestId('replay-status').innerText(), { timeout: UI_TIMEOUT }).toBe('completed');
      await expect.poll(() => page.getByTestId('replay-progress').innerText()).toBe('2 / 2 messages');
      const comparison = page.getByTestId('replay-comparison');
      await expect.poll(() => comparison.locator('li.replay-turn').count()).toBe(2);
      const first = comparison.locator('li.replay-turn').first();
      expect(await first.innerText()).toContain('Do you ship kayaks to Norway?');
      expect(await first.getByTestId('replay-recorded').innerText()).toContain('Yes, we ship to Norway within 3 days.');
      expect((await first.getByTestId('replay-draft').locator('.replay-text').innerText()).trim().length).toBeGreaterThan(0);
      // Sources under both answers: the recorded one names its passage.
      expect(await first.getByTestId('answer-sources').count()).toBe(2);
      await first.getByTestId('replay-recorded').getByText('Sources').click();
      expect(await first.getByTestId('replay-recorded').innerText()).toContain('Shipping policy');
      const second = comparison.locator('li.replay-turn').nth(1);
      expect(await second.getByTestId('replay-recorded').innerText()).toContain('Answered by a teammate');
      replayUrl = page.url();
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow).toBeLessThanOrEqual(0);
    });

    // The same comparison on a phone.
    await page.setViewportSize({ width: 390, height: 844 });
    await withFailureScreenshot(page, 'replay-390', async () => {
      await page.goto(replayUrl);
      await expect.poll(() => page.getByTestId('replay-comparison').locator('li.replay-turn').count()).toBe(2);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      const recorded = await page.getByTestId('replay-recorded').first().boundingBox();
      const draft = await page.getByTestId('replay-draft').first().boundingBox();
      // Stacked, not squeezed side by side.
      expect(draft!.y).toBeGreaterThan(recorded!.y);
      expect(draft!.width).toBeGreaterThan(250);
      // The form and the list of replays fit the phone too.
      await page.goto(`${base}/#/replays`);
      await page.getByRole('heading', { name: 'New replay' }).waitFor();
      await expect.poll(() => page.getByTestId('replay-conversations').locator('li').count()).toBe(2);
      expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
      expect(await page.getByRole('link', { name: /completed/ }).count()).toBe(1);
    });
    expect(pageErrors).toEqual([]);
    await context.close();
  }, 90_000);

  it('the picker finds a conversation beyond the loaded pages by the server\'s search', async () => {
    const owner = await signUpByApi(base, { tag: 'replay-search', companyName: 'Deep History' });
    const companyId = (await owner.api('GET', '/api/auth/me')).json.company.companyId as string;
    // The oldest conversation, then more than a page of newer ones: the first page (50, newest first) leaves it out.
    await seedConversation(server.adapters.eventStore, companyId, [{ customer: ['Where is my canoe paddle?'] }], 'Zelda Quist');
    for (let i = 0; i < 55; i++) await seedConversation(server.adapters.eventStore, companyId, [{ customer: [`Question ${i}`] }], `Filler ${i}`);
    const context = await dashboardContext(browser, { timeoutMs: UI_TIMEOUT, session: owner.session });
    const page = await context.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await withFailureScreenshot(page, 'replay-search', async () => {
      await page.goto(`${base}/#/replays`);
      await page.getByRole('heading', { name: 'New replay' }).waitFor();
      const list = page.getByTestId('replay-conversations');
      await expect.poll(() => list.locator('li').count(), { timeout: UI_TIMEOUT }).toBe(50);
      expect(await list.getByText('Zelda Quist').count()).toBe(0);
      // By name, and by the words of a message: one entry, however many of its messages match.
      await page.getByLabel('Filter').fill('zelda');
      await expect.poll(() => list.locator('li').allInnerTexts(), { timeout: UI_TIMEOUT }).toEqual([expect.stringContaining('Zelda Quist')]);
      await page.getByLabel('Filter').fill('canoe paddle');
      await expect.poll(() => list.locator('li').allInnerTexts(), { timeout: UI_TIMEOUT }).toEqual([expect.stringMatching(/Zelda Quist[\s\S]*canoe paddle/)]);
      await list.getByRole('checkbox', { name: /Zelda Quist/ }).check();
      await page.getByRole('button', { name: 'Estimate' }).click();
      await expect.poll(() => page.getByTestId('replay-estimate').innerText()).toMatch(/1 messages? /);
      await page.getByLabel('Filter').fill('nobody by this name');
      await expect.poll(() => list.innerText(), { timeout: UI_TIMEOUT }).toContain('No conversation matches.');
    });
    expect(pageErrors).toEqual([]);
    await context.close();
  }, 90_000);

  it('a start whose answer was lost, confirmed again, finds the replay the first one started: one replay, not two', async () => {
    const owner = await signUpByApi(base, { tag: 'replay-lost', companyName: 'Lost Answers' });
    const companyId = (await owner.api('GET', '/api/auth/me')).json.company.companyId as string;
    await seedConversation(server.adapters.eventStore, companyId, [{ customer: ['Do you rent canoes?'] }], 'Per Lund');
    const context = await dashboardContext(browser, { timeoutMs: UI_TIMEOUT, session: owner.session });
    const page = await context.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    const keys: string[] = [];
    // The first start reaches the server, and its answer is lost on the way back.
    await page.route('**/api/replays', async (route) => {
      if (route.request().method() !== 'POST') return route.continue();
      keys.push(route.request().headers()['idempotency-key'] ?? '');
      if (keys.length > 1) return route.continue();
      await route.fetch();
      await route.abort('connectionreset');
    });
    await withFailureScreenshot(page, 'replay-lost-answer', async () => {
      await page.goto(`${base}/#/replays`);
      await page.getByRole('heading', { name: 'New replay' }).waitFor();
      await page.getByRole('checkbox', { name: /Per Lund/ }).check();
      await page.getByLabel('System prompt').fill('You are the draft.');
      await page.getByRole('button', { name: 'Estimate' }).click();
      await page.getByRole('button', { name: /Confirm \$0\.00 and start/ }).click();
      await page.getByText('Could not reach the server').waitFor();
      await page.getByRole('button', { name: /Confirm \$0\.00 and start/ }).click();
      await expect.poll(() => page.url(), { timeout: UI_TIMEOUT }).toMatch(/#\/replays\/[0-9a-f-]{36}$/);
    });
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^[0-9a-f]{32}$/);
    expect(keys[1]).toBe(keys[0]);
    const replays = (await owner.api('GET', '/api/replays')).json.replays as { id: string }[];
    expect(replays.map((r) => r.id)).toEqual([page.url().split('/').at(-1)]);
    expect(pageErrors).toEqual([]);
    await context.close();
  }, 90_000);
}
