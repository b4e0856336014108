import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserPrerequisites, dashboardPage, dismissNotifications, journeySteps, navLink, pageHeading, startServerAndBrowser, type ServerAndBrowser } from '../support/browser.js';
import { postPlatformWebhook } from '../support/platformWebhook.js';
import { startFakePlatform, type FakePlatform } from '../support/fakePlatform.js';
import type { TestServer } from '../support/testServer.js';
import { customerIdFor } from '../../src/domain/customers/decider.js';
import { generatedCustomerName } from '../../src/domain/customers/displayName.js';

/**
 * The dashboard in real headless Chromium against a real server (embedded defaults) and the fake messaging
 * platform, driven only through the UI, step by step: sign up → knowledge base → agent → integration →
 * Register webhook → a signed webhook arrives → the conversation appears live (SSE, no reload) → the agent's
 * reply → Pause → another stage → an API token created and revoked. The README's screenshots are taken here.
 * A failing step saves a screenshot under test-results/ and skips the steps after it.
 *
 * Needs the built dashboard (`npm run build`; `npm test` runs it first) and /usr/bin/chromium.
 */

const PLATFORM_TOKEN = 'platform-token-dashboard-e2e';
const WEBHOOK_SECRET = 'whsec_dashboard_e2e_0123456789abcdef';
const PASSWORD = 'correct horse battery';
const COMPANY = 'Nordic Outfitters';
// Each run has a fresh data directory, so a fixed address is unique (and reads well in the screenshots).
const EMAIL = 'maria@nordic-outfitters.example';
const KB_ANSWER = 'We ship to Norway, Sweden and Denmark within 3 business days, and shipping is free on orders over 50 EUR.';
// The README's screenshots are refreshed with UPDATE_SCREENSHOTS=1; other runs keep theirs under test-results/
// so a test run leaves the checkout clean.
const SCREENSHOTS = process.env.UPDATE_SCREENSHOTS === '1' ? join(process.cwd(), 'docs', 'screenshots') : join(process.cwd(), 'test-results', 'screenshots');
const STEP_TIMEOUT = 60_000;
const UI_TIMEOUT = 15_000;


let server: TestServer;
let base: string;
let platform: FakePlatform;
let stage: ServerAndBrowser;
let page: Page;

// Filled in as the flow goes.
let integrationId: number;
let conversationId: string;
let targetStage: { id: string; name: string };
const pageErrors: string[] = [];

if (browserPrerequisites()) {
  beforeAll(async () => {
    platform = await startFakePlatform({ token: PLATFORM_TOKEN });
    stage = await startServerAndBrowser({ ALLOW_PRIVATE_PLATFORM_URLS: 'true', REPLY_BURST_WINDOW_MS: '200' });
    ({ server, base } = stage);
    page = await dashboardPage(stage.browser, { timeoutMs: UI_TIMEOUT, colorScheme: 'light' }, pageErrors);
    mkdirSync(SCREENSHOTS, { recursive: true });
  });

  afterAll(async () => {
    await stage?.close();
    await platform?.close();
  });
  journeySteps('dashboard', () => page);

  const nav = (label: string) => navLink(page, label);
  const heading = (name: string) => pageHeading(page, name);
  const shoot = (name: string) => page.screenshot({ path: join(SCREENSHOTS, name), animations: 'disabled' });
  const settle = () => dismissNotifications(page);

  let seq = 0;
  async function deliverWebhook(clientId: string | number, text: string, direction: 'inbox' | 'outbox' = 'inbox') {
    await postPlatformWebhook(base, integrationId, WEBHOOK_SECRET, {
      hook_type: direction,
      type: direction === 'inbox' ? 'from_client' : 'to_client',
      message_id: `e2e-${Date.now()}-${seq++}`,
      client_id: clientId,
      channel_id: 12,
      transport: 'telegram',
      text,
    });
  }

  describe('dashboard in headless Chromium', () => {
    it('signs up and lands on Conversations, logged in', { timeout: STEP_TIMEOUT }, async () => {
      await page.goto(`${base}/#/register`);
      await expect.poll(() => page.getByRole('heading', { name: 'Create your account' }).isVisible()).toBe(true);
      await page.getByLabel('Your name').fill('Owen Owner');
      await page.getByLabel('Company name').fill(COMPANY);
      await page.getByLabel('Email').fill(EMAIL);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign up', exact: true }).click();
      await heading('Conversations').waitFor();
      await expect.poll(() => page.getByTestId('company-name').textContent()).toContain(COMPANY);
      expect(page.url()).toContain('#/conversations');
      const stored = await page.evaluate(() => JSON.parse(localStorage.getItem('mas.session') ?? 'null') as { access_token?: string } | null);
      expect(stored?.access_token).toEqual(expect.any(String));
    });

    it('adds a knowledge-base document', { timeout: STEP_TIMEOUT }, async () => {
      await nav('Knowledge base').click();
      await heading('Knowledge base').waitFor();
      await page.getByLabel('Title', { exact: true }).fill('Shipping');
      await page.getByLabel('Content', { exact: true }).fill(`# Shipping\n\n${KB_ANSWER}`);
      await page.getByRole('button', { name: 'Add document', exact: true }).click();
      await page.getByTestId('kb-document-row').filter({ hasText: 'Shipping' }).waitFor();
    });

    it('creates an agent that answers from the knowledge base', { timeout: STEP_TIMEOUT }, async () => {
      await nav('Agents').click();
      await heading('Agents').waitFor();
      await page.getByRole('button', { name: 'New agent', exact: true }).click();
      await heading('New agent').waitFor();
      await page.getByLabel('Name', { exact: true }).fill('Ava');
      await page.getByLabel('System prompt').fill('You are Ava, a friendly support agent for Nordic Outfitters.');
      await page.getByLabel('Handoff message').fill('A colleague will get back to you shortly.');
      await settle();
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await heading('Agents').waitFor();
      await page.locator('[data-testid^="agent-card-"]').filter({ hasText: 'Ava' }).waitFor();
    });

    it('creates a msgplatform integration pointing at the platform, with the agent', { timeout: STEP_TIMEOUT }, async () => {
      await nav('Integrations').click();
      await heading('Integrations').waitFor();
      await page.getByRole('button', { name: 'New integration', exact: true }).click();
      await heading('New integration').waitFor();
      await page.getByLabel('Name', { exact: true }).fill('Telegram sales line');
      await page.getByLabel('Connector type').selectOption('msgplatform');
      // The agents load asynchronously: wait for the option before choosing it.
      await page.getByLabel('Agent', { exact: true }).locator('option', { hasText: 'Ava' }).waitFor({ state: 'attached' });
      await page.getByLabel('Agent', { exact: true }).selectOption({ label: 'Ava' });
      await page.getByLabel('Platform API URL').fill(platform.url);
      await page.getByLabel('Platform API token').fill(PLATFORM_TOKEN);
      await page.getByLabel('Webhook secret').fill(WEBHOOK_SECRET);
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await heading('Integrations').waitFor();

      const card = page.locator('[data-testid^="integration-card-"]').filter({ hasText: 'Telegram sales line' });
      await card.waitFor();
      integrationId = Number((await card.getAttribute('data-testid'))!.slice('integration-card-'.length));
      expect(Number.isInteger(integrationId)).toBe(true);
      await expect.poll(() => card.getByTestId('webhook-status').textContent()).toBe('Not registered');
      await expect.poll(() => card.getByTestId('webhook-url').textContent()).toMatch(new RegExp(`/api/webhook/msgplatform/${integrationId}$`));
      await expect.poll(() => card.textContent()).toContain('Ava');
    });

    it('registers the webhook on the platform: the badge shows Registered', { timeout: STEP_TIMEOUT }, async () => {
      const card = page.getByTestId(`integration-card-${integrationId}`);
      await card.getByRole('button', { name: 'Register webhook', exact: true }).click();
      await expect.poll(() => card.getByTestId('webhook-status').textContent()).toBe('Registered');
      await card.getByTestId('webhook-registered-at').waitFor();
      await card.getByRole('button', { name: 'Re-register webhook', exact: true }).waitFor();
      expect(platform.webhooks.map((w) => w.url)).toEqual([expect.stringMatching(new RegExp(`/api/webhook/msgplatform/${integrationId}$`))]);
      // Still registered after a reload (from the read model, not only the click's answer).
      await page.reload();
      await expect.poll(() => page.getByTestId(`integration-card-${integrationId}`).getByTestId('webhook-status').textContent()).toBe('Registered');
      await settle();
      await shoot('integrations.png');
    });

    it('a signed webhook arrives: the conversation appears in the list live, without a reload', { timeout: STEP_TIMEOUT }, async () => {
      await nav('Conversations').click();
      await heading('Conversations').waitFor();
      await page.getByText('No conversations yet').waitFor();
      await expect.poll(() => page.getByTestId('live-indicator').getAttribute('data-status'), { timeout: UI_TIMEOUT }).toBe('live');
      // A marker on window survives only if the page is not reloaded.
      await page.evaluate(() => ((window as unknown as { __e2eMarker: number }).__e2eMarker = 42));

      await deliverWebhook(4711, 'Hi! Do you ship to Norway?');

      const row = page.locator('[data-testid^="conversation-row-"]');
      await row.first().waitFor({ timeout: UI_TIMEOUT });
      expect(await row.count()).toBe(1);
      conversationId = (await row.first().getAttribute('data-testid'))!.slice('conversation-row-'.length);
      // Named by the readable name of the customer id, never the platform's raw client id.
      await expect.poll(() => row.first().textContent()).toContain(generatedCustomerName(customerIdFor(integrationId, 4711)));
      expect(await row.first().textContent()).not.toContain('4711');
      expect(await page.evaluate(() => (window as unknown as { __e2eMarker?: number }).__e2eMarker)).toBe(42);
    });

    it("opens it: the customer's message and the agent's reply from the knowledge base are visible", { timeout: STEP_TIMEOUT }, async () => {
      await page.getByTestId(`conversation-row-${conversationId}`).click();
      expect(page.url()).toContain(`#/conversations/${conversationId}`);
      const customer = page.locator('[data-testid="message"][data-author="customer"]');
      await expect.poll(() => customer.first().textContent()).toContain('Do you ship to Norway?');
      // The reply is generated and sent asynchronously; it shows up live.
      const agent = page.locator('[data-testid="message"][data-author="agent"]');
      await agent.first().waitFor({ timeout: 20_000 });
      await expect.poll(() => agent.first().textContent()).toContain('We ship to Norway');
      await expect.poll(() => agent.first().getAttribute('data-delivery'), { timeout: 20_000 }).toBe('sent');
      // …and it really went out through the platform, to the same client and channel.
      await platform.waitForMessages(1, 10_000);
      expect(platform.messages()[0]).toMatchObject({ client_id: 4711, channel_id: 12, transport: 'telegram', type: 'to_client', text: expect.stringContaining('We ship to Norway') });
      await expect.poll(() => page.getByTestId('session-state').textContent()).toBe('active');
      await settle();
      await shoot('conversation.png');
    });

    it('pauses the AI: the state badge shows paused', { timeout: STEP_TIMEOUT }, async () => {
      await page.getByRole('button', { name: 'Pause', exact: true }).click();
      await expect.poll(() => page.getByTestId('session-state').getAttribute('data-state')).toBe('paused');
      await expect.poll(() => page.getByTestId('session-state').textContent()).toBe('paused');
      await page.getByTestId('paused-reason').waitFor();
      await page.getByRole('button', { name: 'Resume', exact: true }).waitFor();
      // The list row follows.
      await expect.poll(() => page.getByTestId(`conversation-row-${conversationId}`).textContent()).toContain('paused');
      const res = await fetch(`${base}/api/conversations/${conversationId}`, { headers: { authorization: `Bearer ${await accessToken()}` } });
      expect((await res.json()).conversation.session.state).toBe('paused');
    });

    it('moves it to another stage with the stage selector; the pipeline shows it there', { timeout: STEP_TIMEOUT }, async () => {
      const select = page.getByTestId('stage-select');
      const options = await select.locator('option').evaluateAll((els) => els.map((el) => ({ id: (el as HTMLOptionElement).value, name: el.textContent ?? '' })));
      expect(options.length).toBe(6);
      const current = await select.inputValue();
      targetStage = options.find((o) => o.id && o.id !== current && o.name !== options[0]!.name) ?? options[2]!;
      await select.selectOption(targetStage.id);
      await page.getByTestId('toast').filter({ hasText: `Moved to ${targetStage.name}` }).waitFor();
      await expect.poll(() => select.inputValue()).toBe(targetStage.id);
      const res = await fetch(`${base}/api/conversations/${conversationId}`, { headers: { authorization: `Bearer ${await accessToken()}` } });
      expect((await res.json()).conversation.stageId).toBe(targetStage.id);

      // A few more customers, so the pipeline has something in more than one column.
      await deliverWebhook(5120, 'What are your opening hours?');
      await deliverWebhook(6001, 'Do you ship to Sweden as well?');
      // An operator writing first on the platform: a conversation without an AI session.
      await deliverWebhook(7300, 'Hello from the sales team! Your order is ready.', 'outbox');
      await expect.poll(() => page.locator('[data-testid^="conversation-row-"]').count(), { timeout: UI_TIMEOUT }).toBe(4);
      await expect.poll(() => page.locator('[data-testid^="conversation-row-"]').filter({ hasText: generatedCustomerName(customerIdFor(integrationId, 7300)) }).textContent()).toContain('no session');

      await nav('Pipeline').click();
      await heading('Pipeline').waitFor();
      const card = page.getByTestId(`stage-column-${targetStage.id}`).getByTestId(`pipeline-card-${conversationId}`);
      await card.waitFor();
      expect(await card.getAttribute('data-stage-id')).toBe(targetStage.id);
      await settle();
      await shoot('pipeline.png');
    });

    it('creates an API token (shown once) and revokes it', { timeout: STEP_TIMEOUT }, async () => {
      await nav('Settings').click();
      await heading('Settings').waitFor();
      await page.getByLabel('Token name').fill('CRM sync');
      await page.getByRole('button', { name: 'Create token', exact: true }).click();
      const value = page.getByTestId('new-token-value');
      await value.waitFor();
      const token = (await value.textContent())!.trim();
      expect(token).toMatch(/^mas_/);
      // The one-time value works as a bearer token.
      expect((await fetch(`${base}/api/agents`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
      await page.getByRole('dialog').getByRole('button', { name: 'Done', exact: true }).click();
      await value.waitFor({ state: 'detached' });
      const row = page.getByTestId('api-token-row').filter({ hasText: 'CRM sync' });
      await row.waitFor();
      expect(await page.getByText(token).count()).toBe(0); // never shown again
      await settle();
      await shoot('settings.png');

      await row.getByRole('button', { name: 'Revoke', exact: true }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByText('Revoke this token?').waitFor();
      await dialog.getByRole('button', { name: 'Revoke', exact: true }).click();
      await row.waitFor({ state: 'detached' });
      await page.getByTestId('toast').filter({ hasText: 'revoked' }).waitFor();
      expect((await fetch(`${base}/api/agents`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
    });

    it('fits a phone screen (390 px)', { timeout: STEP_TIMEOUT }, async () => {
      await page.setViewportSize({ width: 390, height: 844 });
      await page.goto(`${base}/#/conversations/${conversationId}`);
      await expect.poll(() => page.locator('[data-testid="message"][data-author="agent"]').first().textContent()).toContain('We ship to Norway');
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow).toBeLessThanOrEqual(1);
      await settle();
      await shoot('conversation-mobile.png');
      await page.setViewportSize({ width: 1280, height: 800 });
    });

    it('raised no uncaught errors in the page', () => {
      expect(pageErrors).toEqual([]);
    });
  });
}

async function accessToken(): Promise<string> {
  const session = await page.evaluate(() => JSON.parse(localStorage.getItem('mas.session') ?? 'null') as { access_token: string } | null);
  if (!session) throw new Error('not logged in');
  return session.access_token;
}
