import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserPrerequisites, dashboardBearer, dashboardPage, journeySteps, navLink, pageHeading, signUpInDashboard, startServerAndBrowser, type ServerAndBrowser } from '../support/browser.js';
import type { TestServer } from '../support/testServer.js';

/**
 * The README's quick start, done by a newcomer in headless Chromium with no messaging-platform account: sign up →
 * a knowledge-base document → an agent → an integration without a platform API URL (the sandbox) → "Send a test
 * message" → the conversation opens → the builtin agent's answer, marked delivered to the sandbox. Only the UI is
 * used; no platform, no curl, no secret copied anywhere.
 *
 * Needs the built dashboard (`npm run build`) and /usr/bin/chromium.
 */

const STEP_TIMEOUT = 60_000;
const UI_TIMEOUT = 15_000;
const ANSWER = 'We ship to Norway, Sweden and Denmark within 3 business days.';


let server: TestServer;
let base: string;
let stage: ServerAndBrowser;
let page: Page;
let integrationId: number;
const pageErrors: string[] = [];

if (browserPrerequisites()) {
  beforeAll(async () => {
    // Deliberately the defaults a newcomer has: no ALLOW_PRIVATE_PLATFORM_URLS, no platform, builtin LLM.
    // SEND_MAX_ATTEMPTS=1: the last step's failing send is recorded at once instead of after the retry backoff.
    stage = await startServerAndBrowser({ REPLY_BURST_WINDOW_MS: '200', SEND_MAX_ATTEMPTS: '1' });
    ({ server, base } = stage);
    page = await dashboardPage(stage.browser, { timeoutMs: UI_TIMEOUT }, pageErrors);
  });

  afterAll(async () => {
    await stage?.close();
  });

  journeySteps('quickstart', () => page);

  const nav = (label: string) => navLink(page, label);
  const heading = (name: string) => pageHeading(page, name);

  describe('quick start in headless Chromium: a newcomer without a platform account', () => {
    it('signs up', { timeout: STEP_TIMEOUT }, async () => {
      await signUpInDashboard(page, base, { companyName: 'First Hour Ltd', email: 'newcomer@first-hour.example' });
    });

    it('adds a knowledge-base document and an agent', { timeout: STEP_TIMEOUT }, async () => {
      await nav('Knowledge base').click();
      await heading('Knowledge base').waitFor();
      await page.getByLabel('Title', { exact: true }).fill('Shipping');
      await page.getByLabel('Content', { exact: true }).fill(`# Shipping\n\n${ANSWER}`);
      await page.getByRole('button', { name: 'Add document', exact: true }).click();
      await page.getByTestId('kb-document-row').filter({ hasText: 'Shipping' }).waitFor();

      await nav('Agents').click();
      await heading('Agents').waitFor();
      await page.getByRole('button', { name: 'New agent', exact: true }).click();
      await heading('New agent').waitFor();
      await page.getByLabel('Name', { exact: true }).fill('Ava');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await heading('Agents').waitFor();
      await page.locator('[data-testid^="agent-card-"]').filter({ hasText: 'Ava' }).waitFor();
    });

    it('creates an integration without a platform API URL: the card says it is a sandbox', { timeout: STEP_TIMEOUT }, async () => {
      await nav('Integrations').click();
      await heading('Integrations').waitFor();
      await page.getByRole('button', { name: 'New integration', exact: true }).click();
      await heading('New integration').waitFor();
      await page.getByLabel('Name', { exact: true }).fill('Try-out');
      await page.getByLabel('Agent', { exact: true }).locator('option', { hasText: 'Ava' }).waitFor({ state: 'attached' });
      await page.getByLabel('Agent', { exact: true }).selectOption({ label: 'Ava' });
      await page.getByRole('button', { name: 'Generate', exact: true }).click();
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await heading('Integrations').waitFor();

      const card = page.locator('[data-testid^="integration-card-"]').filter({ hasText: 'Try-out' });
      await card.waitFor();
      integrationId = Number((await card.getAttribute('data-testid'))!.slice('integration-card-'.length));
      await expect.poll(() => card.getByTestId('sandbox-badge').textContent()).toBe('Sandbox — replies are not sent anywhere');
      await page.screenshot({ path: join(process.cwd(), 'test-results', 'quickstart-integration.png') }).catch(() => {});
    });

    it('clicks "Send a test message" and lands on the conversation, where the agent\'s answer is delivered to the sandbox', { timeout: STEP_TIMEOUT }, async () => {
      const card = page.getByTestId(`integration-card-${integrationId}`);
      await card.getByRole('textbox', { name: 'Test message' }).fill('Do you ship to Norway?');
      await card.getByRole('button', { name: 'Send a test message', exact: true }).click();
      await page.waitForURL(/#\/conversations\/[0-9a-f-]{36}$/);

      const customer = page.locator('[data-testid="message"][data-author="customer"]');
      await expect.poll(() => customer.first().textContent()).toContain('Do you ship to Norway?');
      const agent = page.locator('[data-testid="message"][data-author="agent"]');
      await agent.first().waitFor({ timeout: 20_000 });
      await expect.poll(() => agent.first().textContent()).toContain('We ship to Norway');
      await expect.poll(() => agent.first().getAttribute('data-delivery'), { timeout: 20_000 }).toBe('sent');
      await expect.poll(() => agent.first().getByTestId('delivery-sandbox').textContent()).toContain('Delivered to sandbox');
      expect(await page.getByTestId('delivery-failed').count()).toBe(0);
      await page.screenshot({ path: join(process.cwd(), 'test-results', 'quickstart-conversation.png') }).catch(() => {});
    });

    it('sends two test messages in a row, one the knowledge base cannot answer and then the example it suggests: both are answered', { timeout: STEP_TIMEOUT }, async () => {
      const conversationOf = () => /#\/conversations\/([0-9a-f-]{36})$/.exec(page.url())?.[1] ?? null;
      const earlier = conversationOf();
      const send = async (text: string) => {
        await nav('Integrations').click();
        const card = page.getByTestId(`integration-card-${integrationId}`);
        const box = card.getByRole('textbox', { name: 'Test message' });
        // Empty, with an example the knowledge base answers.
        expect(await box.inputValue()).toBe('');
        await expect.poll(() => box.getAttribute('placeholder')).toBe('What about shipping?');
        if (text) await box.fill(text);
        const before = conversationOf();
        await card.getByRole('button', { name: 'Send a test message', exact: true }).click();
        await expect.poll(() => { const id = conversationOf(); return id !== null && id !== before; }).toBe(true);
        return conversationOf()!;
      };
      const customer = page.locator('[data-testid="message"][data-author="customer"]');
      const agent = page.locator('[data-testid="message"][data-author="agent"]');

      // The builtin agent hands this one to a human with its handoff message: an answer, and a paused conversation.
      const first = await send('Can I pay with bitcoin?');
      await expect.poll(() => customer.first().textContent()).toContain('Can I pay with bitcoin?');
      await agent.first().waitFor({ timeout: 20_000 });
      await expect.poll(async () => (await agent.first().textContent())?.trim().length ?? 0).toBeGreaterThan(0);
      expect(await agent.first().textContent()).not.toContain(ANSWER);

      // The next test is a new test customer: not swallowed by the paused conversation.
      const second = await send('');
      expect(new Set([earlier, first, second]).size).toBe(3);
      await expect.poll(() => customer.first().textContent()).toContain('What about shipping?');
      await expect.poll(() => agent.first().textContent(), { timeout: 20_000 }).toContain(ANSWER);
      expect(await customer.count()).toBe(1);
    });

    it('it arrived as a normal webhook: the webhook log shows it processed', { timeout: STEP_TIMEOUT }, async () => {
      const token = await dashboardBearer(page);
      const res = await fetch(`${base}/api/webhook-logs?integrationId=${integrationId}`, { headers: { authorization: `Bearer ${token}` } });
      expect((await res.json()).logs[0]).toMatchObject({ httpStatus: 200, outcome: 'processed', kind: 'message' });
    });

    it('with a platform address that cannot be reached, the conversation says why in one sentence', { timeout: STEP_TIMEOUT }, async () => {
      const token = await dashboardBearer(page);
      const agents = (await (await fetch(`${base}/api/agents`, { headers: { authorization: `Bearer ${token}` } })).json()).agents as Array<{ id: string }>;
      // `.invalid` never resolves (RFC 6761): a send fails like one to a mistyped platform address.
      const created = await fetch(`${base}/api/integrations`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Mistyped', connectorType: 'msgplatform', apiUrl: 'https://platform.invalid', apiToken: 't', webhookSecret: 'whsec_quickstart_0123456789abcdef', agentId: agents[0]!.id }),
      });
      expect(created.status).toBe(201);
      const id = (await created.json()).integration.id as number;
      await nav('Integrations').click();
      const card = page.getByTestId(`integration-card-${id}`);
      await card.waitFor();
      expect(await card.getByTestId('sandbox-badge').count()).toBe(0);
      await card.getByRole('textbox', { name: 'Test message' }).fill('Do you ship to Norway?');
      await card.getByRole('button', { name: 'Send a test message', exact: true }).click();
      await page.waitForURL(/#\/conversations\/[0-9a-f-]{36}$/);
      const failed = page.locator('[data-testid="message"][data-author="agent"]').getByTestId('delivery-failed');
      await expect.poll(() => failed.textContent(), { timeout: 20_000 }).toMatch(/^Not delivered: platform unreachable for POST \/v1\/messages \((ENOTFOUND: its host name does not resolve; check the API URL|EAI_AGAIN: .+)\)$/);
      expect(pageErrors).toEqual([]);
    });
  });
}
