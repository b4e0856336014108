import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { browserPrerequisites, dashboardPage, pageHeading, screenshotStep, signUpByApi, startServerAndBrowser, type ServerAndBrowser, type SignedUp } from '../support/browser.js';
import { uniqueEmail } from '../support/testServer.js';
import { requireWidgetBundle, startShopPage, type ShopPage } from '../support/widgetPage.js';

/**
 * Customers a team can recognise and a desk that says what it expects, in headless Chromium against a real
 * server: the home page's Get started checklist ticks the README quick start from the company's real state and
 * can be dismissed; a test customer is a readable generated name ("Amber Otter") with the channel in the header
 * and the raw id only behind Show id; the web-chat widget's optional pre-chat form checks an email and names the
 * visitor in the inbox; an agent-role teammate sees Actions and Team read-only with the reason before typing.
 * Screenshots at 390, 1280 and 1920 px under test-results/screenshots/customers-*.png. Needs `npm run build`.
 */

const TIMEOUT = 90_000;
const UI = { timeout: 15_000 };
const SECRET = 'whsec_customers_0123456789abcdef';
const SCREENSHOTS = join(process.cwd(), 'test-results', 'screenshots');
const WIDTHS = [390, 1280, 1920] as const;
const GENERATED = /^[A-Z][a-z]+ [A-Z][a-z]+$/;

let stage: ServerAndBrowser;
let base: string;
let owner: SignedUp;
let page: Page;
let shop: ShopPage;
let testConversationId: string;

async function shoot(p: Page, name: string) {
  for (const width of WIDTHS) {
    await p.setViewportSize({ width, height: width === 390 ? 844 : 900 });
    // Nothing scrolls sideways at any width.
    await expect.poll(() => p.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1), UI).toBe(true);
    await p.screenshot({ path: join(SCREENSHOTS, `customers-${name}-${width}.png`) });
  }
  await p.setViewportSize({ width: 1280, height: 900 });
}

async function joinsAsAgent(): Promise<unknown> {
  const invited = await owner.api('POST', '/api/team/invitations', { email: uniqueEmail('customers-agent'), role: 'agent' });
  expect(invited.status).toBe(201);
  const token = decodeURIComponent((invited.json.invitationUrl as string).split('/').at(-1)!);
  const res = await fetch(`${base}/api/auth/accept-invitation`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token, name: 'Ana Agent', password: 'teammate password' }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { session: unknown }).session;
}

if (browserPrerequisites()) {
  beforeAll(async () => {
    requireWidgetBundle();
    stage = await startServerAndBrowser({ REPLY_BURST_WINDOW_MS: '50' });
    base = stage.base;
    owner = await signUpByApi(base, { tag: 'customers', companyName: 'Fjord Kayaks' });
    page = await dashboardPage(stage.browser, { session: owner.session, timeoutMs: UI.timeout, viewport: { width: 1280, height: 900 } });
    shop = await startShopPage(base);
    mkdirSync(SCREENSHOTS, { recursive: true });
  });

  afterAll(async () => {
    await shop?.close();
    await stage?.close();
  });

  const step = screenshotStep('customers', () => page, TIMEOUT);
  const done = (id: string) => page.getByTestId(`onboarding-${id}`).getAttribute('data-done');

  describe('a newcomer is guided, and customers have names', () => {
    step('the Get started checklist follows the quick start and ticks each step from the real state', async () => {
      await page.goto(`${base}/#/conversations`);
      await pageHeading(page, 'Conversations').waitFor();
      await page.getByTestId('onboarding').waitFor(UI);
      for (const id of ['knowledge', 'agent', 'integration', 'test-message', 'go-live']) expect(await done(id)).toBe('false');
      // The empty inbox no longer starts with integrations: the knowledge base comes first, as in the README.
      expect(await page.getByText('Start with the knowledge base', { exact: false }).count()).toBe(1);
      await shoot(page, 'checklist-empty');

      // The quick start, done through the API (as a teammate or a script would): the checklist follows the state.
      expect((await owner.api('POST', '/api/knowledge-base/documents', { title: 'Shipping', content: 'We ship to Norway, Sweden and Denmark within 3 business days.' })).status).toBe(201);
      const agentId = (await owner.api('POST', '/api/agents', { name: 'Ava' })).json.agent.id as string;
      const integrationId = (await owner.api('POST', '/api/integrations', { name: 'Try-out', connectorType: 'msgplatform', webhookSecret: SECRET, agentId })).json.integration.id as number;
      const sent = await owner.api('POST', `/api/integrations/${integrationId}/test-message`, { text: 'Do you ship to Norway?' });
      expect(sent.status).toBe(202);
      testConversationId = sent.json.conversationId;
      await expect
        .poll(async () => {
          await page.reload();
          await page.getByTestId('onboarding').waitFor(UI);
          return Promise.all(['knowledge', 'agent', 'integration', 'test-message', 'go-live'].map(done));
        }, UI)
        .toEqual(['true', 'true', 'true', 'true', 'false']);
      expect(await page.getByTestId('onboarding').textContent()).toContain('4 of 5 done');
      await shoot(page, 'checklist-progress');

      // Dismissed, it stays away (this company, this browser).
      await page.getByTestId('onboarding-dismiss').click();
      await expect.poll(() => page.getByTestId('onboarding').count(), UI).toBe(0);
      await page.reload();
      await pageHeading(page, 'Conversations').waitFor();
      await page.getByTestId(`conversation-row-${testConversationId}`).waitFor(UI);
      expect(await page.getByTestId('onboarding').count()).toBe(0);
    });

    step('a test customer is one generated name in the row, the header and search; the raw id only on Show id', async () => {
      const conversation = (await owner.api('GET', `/api/conversations/${testConversationId}`)).json.conversation;
      const name = conversation.customer.displayName as string;
      const rawId = String(conversation.customer.clientId);
      expect(name).toMatch(GENERATED);
      expect(rawId).toMatch(/^test-/);

      await page.goto(`${base}/#/conversations/${testConversationId}`);
      const row = page.getByTestId(`conversation-row-${testConversationId}`);
      await expect.poll(() => row.textContent(), UI).toContain(name);
      const title = page.locator('.detail-title');
      await expect.poll(() => title.textContent(), UI).toBe(name);
      expect(await page.getByTestId('detail-channel').textContent()).toContain('Test message');
      const header = page.locator('.detail-header');
      expect(await header.textContent()).not.toContain(rawId);
      expect(await page.locator('body').textContent()).not.toContain('Test customer');
      await shoot(page, 'header');

      await header.getByTestId('show-customer-id').click();
      await expect.poll(() => header.getByTestId('customer-raw-id').textContent(), UI).toContain(rawId);
      expect(await header.getByRole('button', { name: 'Copy' }).count()).toBeGreaterThan(0);
      await header.getByTestId('show-customer-id').click();
      await expect.poll(() => header.getByTestId('customer-raw-id').count(), UI).toBe(0);

      // Search names the hit the same way.
      await page.goto(`${base}/#/search?q=Norway`);
      await expect.poll(() => page.locator('.search-hit-customer').first().textContent(), UI).toBe(name);
    });

    step('the web chat pre-chat form checks the email, then names the visitor in the inbox and their profile', async () => {
      const integration = await owner.api('POST', '/api/integrations', { name: 'Site chat', connectorType: 'webchat', allowedOrigins: [shop.origin], prechatForm: true });
      expect(integration.status).toBe(201);
      shop.integrationId = integration.json.integration.id;

      const visitor = await stage.browser.newContext();
      try {
        const shopper = await visitor.newPage();
        await shopper.goto(shop.url);
        await shopper.getByRole('button', { name: 'Open chat' }).click();
        const form = shopper.getByRole('form', { name: 'Before we start' });
        await form.waitFor(UI);
        await form.getByRole('textbox', { name: 'Your name' }).fill('Ingrid Berg');
        await form.getByRole('textbox', { name: 'Your email' }).fill('ingrid at example');
        await form.getByRole('button', { name: 'Start chat' }).click();
        await expect.poll(() => shopper.locator('mas-webchat .pre-err').textContent(), UI).toContain('email address');
        await shoot(shopper, 'prechat-invalid');

        await form.getByRole('textbox', { name: 'Your email' }).fill('ingrid@example.com');
        await form.getByRole('button', { name: 'Start chat' }).click();
        await expect.poll(() => shopper.locator('mas-webchat .pre').count(), UI).toBe(0);
        await shopper.getByRole('textbox', { name: 'Message' }).fill('Do you rent kayaks?');
        await shopper.getByRole('button', { name: 'Send', exact: true }).click();
        await expect.poll(() => shopper.locator('mas-webchat .m[data-author="customer"][data-state="sent"]').count(), UI).toBe(1);

        // Answered once: a reload does not ask again.
        await shopper.reload();
        await shopper.getByRole('button', { name: 'Open chat' }).click();
        await expect.poll(() => shopper.locator('mas-webchat .m[data-author="customer"]').count(), UI).toBe(1);
        expect(await shopper.locator('mas-webchat .pre').count()).toBe(0);
      } finally {
        await visitor.close();
      }

      const conversations = async () => (await owner.api('GET', `/api/conversations?integrationId=${shop.integrationId}`)).json.conversations as Array<{ id: string; customerId: string; customer: { displayName: string } }>;
      await expect.poll(async () => (await conversations())[0]?.customer.displayName, UI).toBe('Ingrid Berg');
      const [chat] = await conversations();
      await expect.poll(async () => (await owner.api('GET', `/api/customers/${chat!.customerId}`)).json.customer?.email, UI).toBe('ingrid@example.com');

      await page.goto(`${base}/#/conversations/${chat!.id}`);
      await expect.poll(() => page.locator('.detail-title').textContent(), UI).toBe('Ingrid Berg');
      expect(await page.getByTestId('detail-channel').textContent()).toContain('Web chat');
      await expect.poll(() => page.getByTestId('customer-email').textContent(), UI).toBe('ingrid@example.com');
      await shoot(page, 'webchat-named');
    });
  });

  describe('the desk follows the role', () => {
    step('an agent sees Actions and Team read-only with the reason up front; the owner does not', async () => {
      const agent = await dashboardPage(stage.browser, { session: await joinsAsAgent(), timeoutMs: UI.timeout, viewport: { width: 1280, height: 900 } });
      try {
        await agent.goto(`${base}/#/actions`);
        await pageHeading(agent, 'Actions').waitFor();
        await expect.poll(() => agent.getByTestId('actions-read-only').textContent(), UI).toContain('Read only for your role');
        expect(await agent.getByTestId('action-new').count()).toBe(0);
        await agent.goto(`${base}/#/actions/new`);
        await expect.poll(() => agent.getByTestId('action-read-only').count(), UI).toBe(1);
        await shoot(agent, 'agent-action');

        await agent.goto(`${base}/#/team`);
        await pageHeading(agent, 'Team').waitFor();
        await expect.poll(() => agent.getByTestId('team-read-only').textContent(), UI).toContain('Owners and admins invite teammates');
        expect(await agent.getByRole('button', { name: /invite/i }).count()).toBe(0);
        await shoot(agent, 'agent-team');
      } finally {
        await agent.context().close();
      }

      await page.goto(`${base}/#/actions`);
      await page.getByTestId('action-new').waitFor(UI);
      expect(await page.getByTestId('actions-read-only').count()).toBe(0);
      await page.goto(`${base}/#/team`);
      await pageHeading(page, 'Team').waitFor();
      await page.getByTestId('teammate-row').first().waitFor(UI);
      expect(await page.getByTestId('team-read-only').count()).toBe(0);
    });
  });
}
