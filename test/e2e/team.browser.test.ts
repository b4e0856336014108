import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { browserPrerequisites, startServerAndBrowser, withFailureScreenshot, type ServerAndBrowser } from '../support/browser.js';
import type { TestServer } from '../support/testServer.js';

/**
 * A support team in real Chromium: the owner invites an agent on the Team page and sees the link once; the
 * agent opens it in a second browser context, joins, is signed in, and sees no Integrations, Webhook logs,
 * LLM settings, Credits or Settings (API tokens) pages; the owner removes them, and the agent's next
 * request is refused. Needs the built dashboard (`npm run build`) and /usr/bin/chromium.
 */
const UI_TIMEOUT = 15_000;

let server: TestServer;
let base: string;
let stage: ServerAndBrowser;
let ownerContext: BrowserContext;
let agentContext: BrowserContext;

if (browserPrerequisites()) {
  beforeAll(async () => {
    stage = await startServerAndBrowser();
    ({ server, base } = stage);
    ownerContext = await stage.browser.newContext({ viewport: { width: 1280, height: 900 } });
    agentContext = await stage.browser.newContext({ viewport: { width: 1280, height: 900 } });
  }, 60_000);
  afterAll(async () => {
    await stage?.close();
  });

  it('owner invites an agent, the agent joins with limited pages, the owner removes them', async () => {
    const ownerEmail = 'owner@team-e2e.example';
    const agentEmail = 'agent@team-e2e.example';
    const owner = await ownerContext.newPage();
    let agent: Page | undefined;

    const link = await withFailureScreenshot(owner, 'team-invite', async () => {
      await owner.goto(`${base}/#/register`);
      await owner.getByLabel('Your name').fill('Owen Owner');
      await owner.getByLabel('Company name').fill('Team Co');
      await owner.getByLabel('Email').fill(ownerEmail);
      await owner.getByLabel('Password').fill('owner password');
      await owner.getByRole('button', { name: 'Sign up' }).click();
      await owner.getByRole('link', { name: 'Team' }).click();
      await owner.getByRole('heading', { name: 'Team', level: 1 }).waitFor({ timeout: UI_TIMEOUT });
      // The owner sees the pages only owners and admins use.
      await owner.getByRole('link', { name: 'Integrations' }).waitFor({ timeout: UI_TIMEOUT });

      await owner.getByLabel('Email').fill(agentEmail);
      await owner.getByLabel('Role', { exact: true }).selectOption('agent');
      await owner.getByRole('button', { name: 'Invite', exact: true }).click();
      const shown = owner.getByTestId('invitation-link');
      await shown.waitFor({ timeout: UI_TIMEOUT });
      const url = (await shown.textContent())!.trim();
      expect(url).toMatch(/#\/accept-invitation\/[0-9a-f-]{36}\.[A-Za-z0-9_-]{43}$/);
      await expect(owner.getByRole('button', { name: /Copy/ }).count()).resolves.toBeGreaterThan(0);
      await owner.getByRole('button', { name: 'Done' }).click();
      // Shown once: the pending list has the invitation, but not its link.
      const row = owner.getByTestId('invitation-row');
      await row.waitFor({ timeout: UI_TIMEOUT });
      expect(await row.getAttribute('data-email')).toBe(agentEmail);
      expect(await owner.content()).not.toContain(url.split('/').at(-1)!);
      await owner.reload();
      await owner.getByTestId('invitation-row').waitFor({ timeout: UI_TIMEOUT });
      expect(await owner.content()).not.toContain(url.split('/').at(-1)!);
      return url;
    });

    // The link names the configured public address; this test server listens on a random port.
    const hash = link.slice(link.indexOf('#'));
    agent = await agentContext.newPage();
    const agentPage = agent;
    await withFailureScreenshot(agentPage, 'team-accept', async () => {
      await agentPage.goto(`${base}/${hash}`);
      await agentPage.getByTestId('invitation-email').waitFor({ timeout: UI_TIMEOUT });
      expect(await agentPage.getByTestId('invitation-email').textContent()).toContain(agentEmail);
      await agentPage.getByLabel('Name').fill('Alex Agent');
      await agentPage.getByLabel('Password').fill('agent password');
      await agentPage.getByRole('button', { name: 'Join team' }).click();
      await agentPage.getByRole('heading', { name: 'Conversations', level: 1 }).waitFor({ timeout: UI_TIMEOUT });
      // Signed in as the agent: the company is the owner's, the manager pages are not in the navigation.
      await expect.poll(() => agentPage.getByTestId('company-name').textContent(), { timeout: UI_TIMEOUT }).toBe('Team Co');
      await agentPage.getByRole('link', { name: 'Team' }).waitFor({ timeout: UI_TIMEOUT });
      const nav = agentPage.getByRole('navigation', { name: 'Main' });
      for (const hidden of ['Integrations', 'Webhook logs', 'LLM settings', 'Credits', 'Settings']) {
        expect(await nav.getByRole('link', { name: hidden, exact: true }).count(), hidden).toBe(0);
      }
      for (const shown of ['Conversations', 'Pipeline', 'Knowledge base', 'Team']) {
        expect(await nav.getByRole('link', { name: shown, exact: true }).count(), shown).toBe(1);
      }
      // Typed into the address bar, a manager page says so instead of failing with 403s.
      await agentPage.goto(`${base}/#/credits`);
      await agentPage.getByText('Not available for your role').waitFor({ timeout: UI_TIMEOUT });
    });

    await withFailureScreenshot(owner, 'team-remove', async () => {
      // The owner's Team page was open all along: reload it to see the new teammate.
      await owner.reload();
      const agentRow = owner.locator(`[data-testid="teammate-row"][data-email="${agentEmail}"]`);
      await agentRow.waitFor({ timeout: UI_TIMEOUT });
      expect(await agentRow.getAttribute('data-role')).toBe('agent');
      await agentRow.getByRole('button', { name: `Remove ${agentEmail}` }).click();
      const dialog = owner.getByRole('dialog');
      await dialog.getByRole('button', { name: 'Remove' }).click();
      await agentRow.waitFor({ state: 'detached', timeout: UI_TIMEOUT });
    });

    await withFailureScreenshot(agentPage, 'team-removed-agent', async () => {
      // The agent's next request is refused (401) and, since refreshing fails too, the app signs them out.
      const session = JSON.parse((await agentPage.evaluate(() => localStorage.getItem('mas.session'))) ?? 'null');
      expect(session?.access_token).toEqual(expect.any(String));
      const status = await agentPage.evaluate(
        async (token) => (await fetch('/api/conversations', { headers: { authorization: `Bearer ${token}` } })).status,
        session.access_token,
      );
      expect(status).toBe(401);
      await agentPage.goto(`${base}/#/conversations`);
      await agentPage.getByRole('button', { name: 'Log in' }).waitFor({ timeout: UI_TIMEOUT });
    });
  }, 120_000);

  it('the API token list says who created each token', async () => {
    const context = await stage.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await withFailureScreenshot(page, 'team-token-creator', async () => {
      await page.goto(`${base}/#/register`);
      await page.getByLabel('Your name').fill('Tove Token');
      await page.getByLabel('Company name').fill('Token Co');
      await page.getByLabel('Email').fill('owner@token-e2e.example');
      await page.getByLabel('Password').fill('owner password');
      await page.getByRole('button', { name: 'Sign up' }).click();
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings', exact: true }).click();
      await page.getByLabel('Token name').fill('CRM sync');
      await page.getByRole('button', { name: 'Create token', exact: true }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Done', exact: true }).click();
      const row = page.getByTestId('api-token-row').filter({ hasText: 'CRM sync' });
      await row.waitFor({ timeout: UI_TIMEOUT });
      await expect.poll(() => row.getByTestId('api-token-creator').textContent(), { timeout: UI_TIMEOUT }).toBe('Tove Token');
    });
    await context.close();
  }, 60_000);
}
