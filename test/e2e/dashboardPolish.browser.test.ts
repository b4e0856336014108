import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserPrerequisites, dashboardPage, dismissNotifications, pageHeading, screenshotStep, signUpByApi, startServerAndBrowser, type ServerAndBrowser, type SignedUp } from '../support/browser.js';
import { postPlatformWebhook } from '../support/platformWebhook.js';
import { startFakeLlm, type FakeLlm } from '../support/fakeLlm.js';
import { startFakePlatform, type FakePlatform } from '../support/fakePlatform.js';
import type { TestServer } from '../support/testServer.js';

/**
 * The dashboard's rough edges (issue 15), in real headless Chromium against a real server: the pipeline fits six
 * stages at 1280 px and moves a card only on an explicit confirmation; Settings and Credits fit a 390 px phone;
 * the event history reads as sentences; Close asks first and Reopen exists; focus stays on the session toggle;
 * LLM "Test connection" tests the form; unsaved changes are guarded; the integration form keeps its draft and
 * defaults to the company's agent. The browser runs in German (de-DE) to show that dates still follow the UI's
 * English. Screenshots at 1280x800 and 390x844 go to test-results/screenshots.
 *
 * Needs the built dashboard (`npm run build`) and /usr/bin/chromium.
 */

const PLATFORM_TOKEN = 'platform-token-polish';
const WEBHOOK_SECRET = 'whsec_polish_0123456789abcdef0123';
const SCREENSHOTS = join(process.cwd(), 'test-results', 'screenshots');
const STEP = 60_000;
const UI = 15_000;
// Web chat customers are named after their visitor id: long, unbreakable labels.
const LONG_CLIENTS = ['5f0c2b7e-9d4a-4c61-8e2f-1a3b5c7d9e0f', '0b9e8d7c-6a5f-4e3d-2c1b-0a9f8e7d6c5b'];


let server: TestServer;
let base: string;
let platform: FakePlatform;
let llm: FakeLlm;
let stage: ServerAndBrowser;
let page: Page;
let owner: SignedUp;
let integrationId: number;
let bareIntegrationId: number;
const conversationIds: string[] = [];
let stages: { id: string; name: string }[] = [];
const pageErrors: string[] = [];

const api = (method: string, url: string, body?: unknown) => owner.api(method, url, body);

let seq = 0;
async function deliver(clientId: string | number, text: string) {
  await postPlatformWebhook(base, integrationId, WEBHOOK_SECRET, { hook_type: 'inbox', type: 'from_client', message_id: `polish-${seq++}`, client_id: clientId, channel_id: 3, transport: 'telegram', text });
}

const shoot = async (name: string) => {
  await dismissNotifications(page);
  await page.screenshot({ path: join(SCREENSHOTS, name), animations: 'disabled' });
};
const heading = (name: string) => pageHeading(page, name);
const horizontalOverflow = () => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
const open = async (hash: string, title: string) => {
  await page.goto(`${base}/#${hash}`);
  await heading(title).waitFor();
};

const step = screenshotStep('polish', () => page, STEP);

if (browserPrerequisites()) {
  beforeAll(async () => {
    platform = await startFakePlatform({ token: PLATFORM_TOKEN });
    llm = await startFakeLlm({ models: ['polish-model-1'] });
    stage = await startServerAndBrowser({ ALLOW_PRIVATE_PLATFORM_URLS: 'true', REPLY_BURST_WINDOW_MS: '100' });
    ({ server, base } = stage);

    owner = await signUpByApi(base, { tag: 'polish', companyName: 'Nordic Outfitters' });

    const agent = await api('POST', '/api/agents', { name: 'Ava', systemPrompt: 'You are Ava.', handoffMessage: 'A colleague will answer shortly.' });
    expect(agent.status).toBe(201);
    const integration = await api('POST', '/api/integrations', {
      name: 'Telegram sales line',
      connectorType: 'msgplatform',
      agentId: agent.json.agent.id,
      apiUrl: platform.url,
      apiToken: PLATFORM_TOKEN,
      webhookSecret: WEBHOOK_SECRET,
    });
    expect(integration.status).toBe(201);
    integrationId = integration.json.integration.id;
    const bare = await api('POST', '/api/integrations', { name: 'Not configured yet', connectorType: 'msgplatform', webhookSecret: WEBHOOK_SECRET });
    expect(bare.status).toBe(201);
    bareIntegrationId = bare.json.integration.id;

    // The builtin agent answers from this.
    expect((await api('POST', '/api/knowledge-base/documents', { title: 'Shipping', content: '# Shipping\n\nWe ship to Norway, Sweden and Denmark within 3 business days.' })).status).toBe(201);
    for (const [i, client] of [4711, ...LONG_CLIENTS, 5120, 6001, 7300].entries()) await deliver(client, `Hello number ${i}, do you ship to Norway?`);
    const deadline = Date.now() + UI;
    let list: { id: string; messageCount: number; session: { state: string } }[] = [];
    while (Date.now() < deadline) {
      list = (await api('GET', '/api/conversations?limit=50')).json.conversations;
      if (list.length === 6 && list.every((c) => c.messageCount >= 2)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    // Some may have been handed off (paused): resume them so every session starts active.
    for (const c of list) if (c.session.state === 'paused') expect((await api('POST', `/api/conversations/${c.id}/resume`)).status).toBe(200);
    expect(list).toHaveLength(6);
    conversationIds.push(...list.map((c) => c.id));
    stages = (await api('GET', '/api/pipeline')).json.pipeline.stages.sort((a: { position: number }, b: { position: number }) => a.position - b.position);
    expect(stages).toHaveLength(6);
    // One card in every stage, the long web-chat-like names among them (Lost is the last column).
    for (const [i, id] of conversationIds.entries()) expect((await api('PUT', `/api/conversations/${id}/stage`, { stageId: stages[i]!.id })).status).toBe(200);

    // A German browser: the UI is English, so its dates and numbers must be too.
    page = await dashboardPage(stage.browser, { locale: 'de-DE', session: owner.session, timeoutMs: UI, colorScheme: 'light' }, pageErrors);
    mkdirSync(SCREENSHOTS, { recursive: true });
  });

  afterAll(async () => {
    await stage?.close();
    await platform?.close();
    await llm?.close();
  });

  describe('pipeline', () => {
    step('fits all six stages at 1280 px, Lost included, and long names stay inside their cards', async () => {
      await open('/pipeline', 'Pipeline');
      await page.locator('[data-testid^="pipeline-card-"]').nth(5).waitFor();
      const lost = stages.at(-1)!;
      expect(lost.name).toBe('Lost');
      for (const stage of stages) {
        const box = (await page.getByTestId(`stage-column-${stage.id}`).boundingBox())!;
        expect(box.x, `${stage.name} starts on screen`).toBeGreaterThanOrEqual(0);
        expect(box.x + box.width, `${stage.name} ends within the 1280 px viewport`).toBeLessThanOrEqual(1280);
        // The column title is not cut ("Contacted").
        const title = page.getByTestId(`stage-column-${stage.id}`).locator('.board-column-title span').first();
        expect(await title.evaluate((el) => el.scrollWidth <= el.clientWidth + 1), `${stage.name}'s title fits`).toBe(true);
      }
      // Every card (and what is in it) stays inside its own column.
      for (const id of conversationIds) {
        const card = page.getByTestId(`pipeline-card-${id}`);
        const column = card.locator('xpath=ancestor::section[1]');
        const [cardBox, columnBox] = [(await card.boundingBox())!, (await column.boundingBox())!];
        expect(cardBox.x + cardBox.width).toBeLessThanOrEqual(columnBox.x + columnBox.width + 0.5);
        const overflowing = await card.evaluate((el) => [...el.querySelectorAll('*')].filter((child) => child.getBoundingClientRect().right > el.getBoundingClientRect().right + 0.5).length);
        expect(overflowing, `nothing in card ${id} sticks out`).toBe(0);
      }
      expect(await horizontalOverflow()).toBeLessThanOrEqual(1);
      await shoot('pipeline-1280.png');
    });

    step('ArrowDown on "Move to…" only chooses; Enter moves the card', async () => {
      const id = conversationIds[0]!;
      const card = page.getByTestId(`pipeline-card-${id}`);
      expect(await card.getAttribute('data-stage-id')).toBe(stages[0]!.id);
      const select = card.getByLabel('Move to…');
      await select.focus();
      await page.keyboard.press('ArrowDown');
      await page.waitForTimeout(600);
      expect((await api('GET', `/api/conversations/${id}`)).json.conversation.stageId, 'not moved by an arrow key').toBe(stages[0]!.id);
      expect(await page.getByTestId(`stage-column-${stages[0]!.id}`).getByTestId(`pipeline-card-${id}`).count()).toBe(1);
      await page.keyboard.press('Enter');
      await expect.poll(async () => (await api('GET', `/api/conversations/${id}`)).json.conversation.stageId).toBe(stages[1]!.id);
      await page.getByTestId(`stage-column-${stages[1]!.id}`).getByTestId(`pipeline-card-${id}`).waitFor();
      // The button does the same for a pointer user.
      const moveBack = page.getByTestId(`pipeline-card-${id}`).getByLabel('Move to…');
      await moveBack.selectOption(stages[0]!.id);
      await page.getByTestId(`pipeline-card-${id}`).getByRole('button', { name: `Move to ${stages[0]!.name}`, exact: true }).click();
      await page.getByTestId(`stage-column-${stages[0]!.id}`).getByTestId(`pipeline-card-${id}`).waitFor();
    });

    step('scrolls sideways with snapping at 390 px, without widening the page', async () => {
      await page.setViewportSize({ width: 390, height: 844 });
      await open('/pipeline', 'Pipeline');
      await page.locator('[data-testid^="pipeline-card-"]').first().waitFor();
      const board = page.getByTestId('pipeline-board');
      expect(await board.evaluate((el) => getComputedStyle(el).scrollSnapType)).toContain('x');
      expect(await board.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
      expect(await horizontalOverflow()).toBeLessThanOrEqual(1);
      await shoot('pipeline-390.png');
      await page.setViewportSize({ width: 1280, height: 800 });
    });
  });

  describe('settings and credits', () => {
    step('at 390 px the token table and the ledger fit without sideways scrolling', async () => {
      expect((await api('POST', '/api/settings/api-tokens', { name: 'CRM sync for the northern warehouse' })).status).toBe(201);
      await page.setViewportSize({ width: 390, height: 844 });
      for (const [hash, title, row, shot] of [
        ['/settings', 'Settings', 'api-token-row', 'settings-390.png'],
        ['/credits', 'Credits', 'ledger-row', 'credits-390.png'],
      ] as const) {
        await open(hash, title);
        await page.getByTestId(row).first().waitFor();
        expect(await horizontalOverflow(), `${title} does not scroll sideways`).toBeLessThanOrEqual(1);
        // Each row's content is inside the viewport, not hidden in a scrolled table.
        const right = await page.getByTestId(row).first().evaluate((el) => Math.max(...[...el.querySelectorAll('td')].map((td) => td.getBoundingClientRect().right)));
        expect(right, `${title}'s rows end on screen`).toBeLessThanOrEqual(390);
        await shoot(shot);
      }
      await page.setViewportSize({ width: 1280, height: 800 });
      for (const [hash, title, row, shot] of [
        ['/settings', 'Settings', 'api-token-row', 'settings-1280.png'],
        ['/credits', 'Credits', 'ledger-row', 'credits-1280.png'],
      ] as const) {
        await open(hash, title);
        await page.getByTestId(row).first().waitFor();
        expect(await horizontalOverflow()).toBeLessThanOrEqual(1);
        await shoot(shot);
      }
    });

    step('dates follow the UI language (English), not the browser locale (German)', async () => {
      await open('/settings', 'Settings');
      const created = await page.getByTestId('api-token-row').first().locator('time').first().textContent();
      const year = new Date().getUTCFullYear();
      expect(created).toMatch(new RegExp(`^(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \\d{1,2}, ${year}, \\d{1,2}:\\d{2}\\s?(AM|PM)$`));
    });
  });

  describe('conversation view', () => {
    step('the event history is one sentence per event, with the JSON behind "Show JSON"', async () => {
      const id = conversationIds[0]!;
      await open(`/conversations/${id}`, 'Conversations');
      await page.getByRole('tab', { name: 'Event history' }).click();
      const events = page.getByTestId('event');
      await events.first().waitFor();
      const received = page.locator('[data-testid="event"][data-type="MessageReceived"]').first();
      await expect.poll(() => received.getByTestId('event-sentence').textContent()).toMatch(/^Customer message received: “Hello number \d, do you ship to Norway\?”$/);
      await expect.poll(() => page.locator('[data-testid="event"][data-type="StageChanged"]').first().getByTestId('event-sentence').textContent()).toMatch(/^Moved to the stage “.+” by you\.$/);
      expect(await page.locator('pre.json').count(), 'no JSON until asked for').toBe(0);
      await received.getByRole('button', { name: 'Show JSON', exact: true }).click();
      await expect.poll(() => received.locator('pre.json').textContent()).toContain('"dedupeKey"');
      await received.getByRole('button', { name: 'Hide JSON', exact: true }).waitFor();
      await shoot('conversation-events-1280.png');
      await page.setViewportSize({ width: 390, height: 844 });
      expect(await horizontalOverflow()).toBeLessThanOrEqual(1);
      await shoot('conversation-events-390.png');
      await page.setViewportSize({ width: 1280, height: 800 });
    });

    step('Pause and Resume keep the focus on the session toggle', async () => {
      await page.getByRole('tab', { name: 'Messages' }).click();
      await expect.poll(() => page.getByTestId('session-state').getAttribute('data-state')).toBe('active');
      await page.getByRole('button', { name: 'Pause', exact: true }).click();
      await expect.poll(() => page.getByTestId('session-state').getAttribute('data-state')).toBe('paused');
      await expect.poll(() => page.evaluate(() => document.activeElement?.textContent?.trim())).toBe('Resume');
      await page.keyboard.press('Enter');
      await expect.poll(() => page.getByTestId('session-state').getAttribute('data-state')).toBe('active');
      await expect.poll(() => page.evaluate(() => document.activeElement?.textContent?.trim())).toBe('Pause');
      await shoot('conversation-1280.png');
      await page.setViewportSize({ width: 390, height: 844 });
      expect(await horizontalOverflow()).toBeLessThanOrEqual(1);
      await shoot('conversation-390.png');
      await page.setViewportSize({ width: 1280, height: 800 });
    });

    step('Close asks first; a closed conversation can be reopened', async () => {
      const id = conversationIds[0]!;
      await page.getByRole('button', { name: 'Close session', exact: true }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByText('Close this conversation?').waitFor();
      await dialog.getByRole('button', { name: 'Cancel', exact: true }).click();
      await dialog.waitFor({ state: 'detached' }).catch(() => dialog.waitFor({ state: 'hidden' }));
      expect((await api('GET', `/api/conversations/${id}`)).json.conversation.session.state, 'Cancel closes nothing').toBe('active');
      await page.getByRole('button', { name: 'Close session', exact: true }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Close session', exact: true }).click();
      await expect.poll(() => page.getByTestId('session-state').getAttribute('data-state')).toBe('closed');
      const closedSession = (await api('GET', `/api/conversations/${id}`)).json.conversation.session.id;
      await page.getByRole('button', { name: 'Reopen', exact: true }).click();
      await expect.poll(() => page.getByTestId('session-state').getAttribute('data-state')).toBe('active');
      const reopened = (await api('GET', `/api/conversations/${id}`)).json.conversation.session;
      expect(reopened.state).toBe('active');
      expect(reopened.id).not.toBe(closedSession);
      await page.getByRole('tab', { name: 'Event history' }).click();
      await expect.poll(() => page.locator('[data-testid="event"][data-type="ConversationReopened"]').getByTestId('event-sentence').textContent()).toBe(
        'Conversation reopened by you: a new AI session started.',
      );
      // Reopening an open conversation records nothing; one without a session is refused.
      expect((await api('POST', `/api/conversations/${id}/reopen`)).status).toBe(200);
      const stream = (await api('GET', `/api/conversations/${id}/events`)).json.events.filter((e: { type: string }) => e.type === 'ConversationReopened');
      expect(stream).toHaveLength(1);
    });
  });

  describe('LLM settings', () => {
    step('"Test connection" tests what the form holds, unsaved, and leaving asks first', async () => {
      await open('/llm-settings', 'LLM settings');
      await page.getByRole('radio', { name: /OpenAI-compatible/ }).check();
      await page.getByLabel('Base URL').fill(llm.url);
      await page.getByLabel('Model').fill('polish-model-1');
      await page.getByLabel('API key').fill('sk-polish-unsaved-key-0123456789');
      await page.getByRole('button', { name: 'Test connection', exact: true }).click();
      const result = page.getByTestId('llm-test-result');
      await expect.poll(() => result.textContent()).toContain('Connection works — model polish-model-1 answered');
      expect(await result.textContent()).not.toContain('builtin');
      expect(await result.textContent()).not.toContain('sk-polish');
      expect(llm.requests.at(-1)?.authorization).toBe('Bearer sk-polish-unsaved-key-0123456789');
      // Nothing was saved by testing.
      expect((await api('GET', '/api/llm-config')).json.llmConfig).toMatchObject({ provider: 'builtin', hasApiKey: false });

      // A reload would lose the form: the browser is asked to confirm.
      expect(await page.evaluate(() => !window.dispatchEvent(new Event('beforeunload', { cancelable: true })))).toBe(true);
      // Another page of the dashboard: an in-page question; "Stay" keeps everything typed.
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Credits', exact: true }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByText('Leave without saving?').waitFor();
      await shoot('llm-leave-prompt-1280.png');
      await dialog.getByRole('button', { name: 'Stay on this page', exact: true }).click();
      await heading('LLM settings').waitFor();
      expect(page.url()).toContain('#/llm-settings');
      expect(await page.getByLabel('Model').inputValue()).toBe('polish-model-1');
      // "Leave" goes where the link pointed.
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Credits', exact: true }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Leave', exact: true }).click();
      await heading('Credits').waitFor();
      // Nothing typed: no prompt.
      await open('/llm-settings', 'LLM settings');
      expect(await page.evaluate(() => !window.dispatchEvent(new Event('beforeunload', { cancelable: true })))).toBe(false);
    });
  });

  describe('integrations', () => {
    step('"Register webhook" is not the main action, and disabled, without an API URL', async () => {
      await open('/integrations', 'Integrations');
      const bare = page.getByTestId(`integration-card-${bareIntegrationId}`);
      const button = bare.getByRole('button', { name: 'Register webhook', exact: true });
      expect(await button.isDisabled()).toBe(true);
      expect(await button.getAttribute('class')).not.toContain('btn-primary');
      await bare.getByTestId('register-hint').waitFor();
      // A configured one keeps it as the primary action.
      const ready = page.getByTestId(`integration-card-${integrationId}`).getByRole('button', { name: 'Register webhook', exact: true });
      expect(await ready.isDisabled()).toBe(false);
      expect(await ready.getAttribute('class')).toContain('btn-primary');
      await shoot('integrations-1280.png');
    });

    step('a new integration defaults to the agent, hides "keep the current one", and keeps its draft across "create an agent"', async () => {
      await open('/integrations/new', 'New integration');
      await page.getByLabel('Connector type').selectOption('webchat');
      await expect.poll(() => page.getByLabel('Agent', { exact: true }).locator('option:checked').textContent()).toBe('Ava');
      await page.getByLabel('Connector type').selectOption('msgplatform');
      expect(await page.getByText('Leave blank to keep the current one').count()).toBe(0);
      await page.getByLabel('Name', { exact: true }).fill('WhatsApp north');
      await page.getByLabel('Platform API URL').fill('https://api.chat24.io');
      await page.getByRole('link', { name: 'Create another agent', exact: true }).click();
      await heading('New agent').waitFor();
      await page.goBack();
      await heading('New integration').waitFor();
      expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe('WhatsApp north');
      expect(await page.getByLabel('Platform API URL').inputValue()).toBe('https://api.chat24.io');
      // The secrets are never put in browser storage.
      expect(await page.evaluate(() => JSON.stringify(sessionStorage))).not.toMatch(/apiToken|webhookSecret/);
      // The restored draft is unsaved work: leaving for another page asks first.
      await page.goto(`${base}/#/integrations/${integrationId}`);
      await page.getByRole('dialog').getByRole('button', { name: 'Leave', exact: true }).click();
      // Editing shows the hint again: there is a current value to keep.
      await heading('Edit integration').waitFor();
      await page.getByText('Leave blank to keep the current one.').first().waitFor();
    });
  });

  it('raised no uncaught errors in the page', () => {
    expect(pageErrors).toEqual([]);
  });
}
