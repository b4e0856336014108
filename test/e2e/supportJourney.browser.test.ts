import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { browserPrerequisites, dashboardContext, signUpInDashboard, startServerAndBrowser, withFailureScreenshot, type ServerAndBrowser } from '../support/browser.js';
import { postPlatformWebhook } from '../support/platformWebhook.js';
import type { TestServer } from '../support/testServer.js';

/**
 * Issue 12's whole path, in real Chromium, as a support team works: the owner invites an agent; the agent joins,
 * takes the conversation waiting in "Needs human", answers it with a canned reply inserted with "/", searches a
 * past message of another customer, and edits that customer's notes. Needs the built dashboard and Chromium.
 */
const SECRET = 'whsec_journey_0123456789abcdef';
const UI_TIMEOUT = 15_000;

let server: TestServer;
let base: string;
let stage: ServerAndBrowser;
let ownerContext: BrowserContext;
let agentContext: BrowserContext;
const pageErrors: string[] = [];

async function customerWrites(integrationId: number, clientId: string, name: string, text: string) {
  await postPlatformWebhook(base, integrationId, SECRET, { text, client_id: clientId, channel_id: 1, transport: 'telegram', client: { name } });
}

if (browserPrerequisites()) {
  beforeAll(async () => {
    stage = await startServerAndBrowser({ REPLY_BURST_WINDOW_MS: '0' });
    ({ server, base } = stage);
    ownerContext = await dashboardContext(stage.browser, { timeoutMs: UI_TIMEOUT });
    agentContext = await dashboardContext(stage.browser, { timeoutMs: UI_TIMEOUT });
  }, 60_000);
  afterAll(async () => {
    await stage?.close();
  });

  it('owner invites an agent; the agent takes a waiting conversation, answers with a canned reply, searches a past message and edits the customer’s notes', async () => {
    const owner = await ownerContext.newPage();
    owner.on('pageerror', (e) => pageErrors.push(`owner: ${e.message}`));
    let integrationId = 0;

    const link = await withFailureScreenshot(owner, 'journey-owner', async () => {
      await signUpInDashboard(owner, base, { companyName: 'Journey Outfitters', email: 'owner@journey.example', password: 'owner password' });

      // The setup an owner does once, through the API with the owner's own session: an agent, a platform
      // integration, a canned reply, and two customers (one an old conversation, one waiting for a human).
      const session = await owner.evaluate(() => JSON.parse(localStorage.getItem('mas.session') ?? '{}') as { access_token: string });
      const api = async (method: string, path: string, body?: unknown) => {
        const res = await fetch(`${base}${path}`, { method, headers: { 'content-type': 'application/json', authorization: `Bearer ${session.access_token}` }, body: body === undefined ? undefined : JSON.stringify(body) });
        expect(res.status, `${method} ${path}`).toBeLessThan(300);
        return res.json();
      };
      const agent = await api('POST', '/api/agents', { name: 'Ava', systemPrompt: 'You are Ava.', handoffMessage: 'A colleague will answer shortly.' });
      integrationId = (await api('POST', '/api/integrations', { name: 'Telegram line', connectorType: 'msgplatform', agentId: agent.agent.id, webhookSecret: SECRET })).integration.id;
      await api('POST', '/api/canned-replies', { shortcut: 'giftcards', title: 'Gift cards', text: 'Yes, gift cards are sold in every store and online.' });
      await customerWrites(integrationId, 'old-customer', 'Ingrid Berg', 'Is the blue kayak paddle still in stock?');
      await customerWrites(integrationId, 'waiting-customer', 'Ola Nordmann', 'Do you sell gift cards for the winter collection?');

      // The owner invites an agent from the Team page; the link is shown once.
      await owner.getByRole('link', { name: 'Team' }).click();
      await owner.getByRole('heading', { name: 'Team', level: 1 }).waitFor();
      await owner.getByLabel('Email').fill('agent@journey.example');
      await owner.getByLabel('Role', { exact: true }).selectOption('agent');
      await owner.getByRole('button', { name: 'Invite', exact: true }).click();
      const shown = owner.getByTestId('invitation-link');
      await shown.waitFor();
      return (await shown.textContent())!.trim();
    });

    const agent = await agentContext.newPage();
    agent.on('pageerror', (e) => pageErrors.push(`agent: ${e.message}`));
    await withFailureScreenshot(agent, 'journey-agent', async () => {
      // The agent follows the link (it names the configured address; this server listens on a random port).
      await agent.goto(`${base}/${link.slice(link.indexOf('#'))}`);
      await agent.getByLabel('Name').fill('Alex Agent');
      await agent.getByLabel('Password').fill('agent password');
      await agent.getByRole('button', { name: 'Join team' }).click();
      await agent.getByRole('heading', { name: 'Conversations', level: 1 }).waitFor();
      expect(await agent.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Integrations', exact: true }).count()).toBe(0);

      // "Needs human" holds both customers the builtin LLM handed off (nothing in the knowledge base answers).
      await agent.getByTestId('view-tab-needs_human').click();
      const rows = agent.locator('.conversation-list [data-testid^="conversation-row-"]');
      await expect.poll(() => rows.count(), { timeout: UI_TIMEOUT }).toBe(2);
      await rows.filter({ hasText: 'Ola Nordmann' }).click();
      await expect.poll(() => agent.getByTestId('handoff').textContent()).toContain('The AI handed off');
      await agent.getByTestId('assign-to-me').click();
      await expect.poll(() => agent.getByTestId('assignee-label').textContent()).toBe('Assigned to you');

      // The answer is a canned reply, inserted with "/".
      const reply = agent.getByLabel('Reply as operator');
      await reply.click();
      await reply.pressSequentially('/gift');
      await expect.poll(() => agent.getByTestId('canned-reply-list').getByTestId('canned-reply-option').count()).toBe(1);
      await reply.press('Enter');
      await expect.poll(() => reply.inputValue()).toBe('Yes, gift cards are sold in every store and online.');
      await agent.getByRole('button', { name: 'Send' }).click();
      await expect.poll(() => agent.getByTestId('handoff').count()).toBe(0);
      await agent.getByText('Yes, gift cards are sold in every store and online.').first().waitFor();

      // A past message of another customer, found by search; its conversation opens with the customer beside it.
      const box = agent.getByRole('searchbox', { name: 'Search messages and customers' });
      await box.fill('kayak paddle');
      await box.press('Enter');
      const hit = agent.getByTestId('search-hit');
      await expect.poll(() => hit.count()).toBe(1);
      await expect.poll(() => hit.first().locator('mark').allInnerTexts()).toEqual(['kayak', 'paddle']);
      await hit.first().click();
      await agent.waitForURL(/#\/conversations\/[0-9a-f-]{36}$/);

      // The agent notes what they learned on the customer's profile.
      const panel = agent.getByTestId('customer-panel');
      await expect.poll(() => panel.getByTestId('customer-name').textContent(), { timeout: UI_TIMEOUT }).toBe('Ingrid Berg');
      await panel.getByTestId('customer-note-input').fill('Asks about kayak gear; call back when the paddles arrive.');
      await panel.getByTestId('customer-note-save').click();
      await panel.getByTestId('customer-note-meta').waitFor();
    });

    // The owner sees the agent's work: the note on the customer, the reply in the answered conversation.
    await withFailureScreenshot(owner, 'journey-owner-after', async () => {
      const session = await owner.evaluate(() => JSON.parse(localStorage.getItem('mas.session') ?? '{}') as { access_token: string });
      const get = async (path: string) => (await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${session.access_token}` } })).json();
      const { conversations } = await get('/api/conversations');
      const ingrid = conversations.find((c: { customer: { displayName?: string } }) => c.customer.displayName === 'Ingrid Berg');
      expect((await get(`/api/customers/${ingrid.customerId}`)).customer.note).toBe('Asks about kayak gear; call back when the paddles arrive.');
      const ola = conversations.find((c: { customer: { displayName?: string } }) => c.customer.displayName === 'Ola Nordmann');
      expect(ola.handoff).toBeNull();
      expect(ola.assigneeId).not.toBeNull();
    });
    expect(pageErrors).toEqual([]);
  }, 120_000);
}
