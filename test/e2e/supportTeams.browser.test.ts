import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { browserPrerequisites, dashboardPage, dismissNotifications, journeySteps, screenshotStep, signUpByApi, startServerAndBrowser, type ServerAndBrowser, type SignedUp } from '../support/browser.js';
import { postPlatformWebhook } from '../support/platformWebhook.js';

/**
 * Issue 39 (round two), teams and routing, in real Chromium: an owner creates a team in Settings, makes themself
 * its member and routes the integration to it; a handed-off conversation then shows the team on its inbox row, in
 * its header, and the inbox's Team filter finds it. At 390, 1280 and 1920 px; screenshots go to
 * test-results/screenshots. Needs the built dashboard (`npm run build`) and Chromium.
 */

const SECRET = 'whsec_teams_browser_0123456789abcdef';
const SCREENSHOTS = join(process.cwd(), 'test-results', 'screenshots');
const UI = 15_000;
const STEP = 60_000;

let stage: ServerAndBrowser;
let base: string;
let owner: SignedUp;
let page: Page;
let integrationId: number;
let conversationId: string;
const pageErrors: string[] = [];

const shoot = async (name: string) => {
  await dismissNotifications(page);
  await page.screenshot({ path: join(SCREENSHOTS, name), animations: 'disabled' });
};
const step = screenshotStep('teams', () => page, STEP);
const noSidewaysScroll = async () => expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);

if (browserPrerequisites()) {
  beforeAll(async () => {
    stage = await startServerAndBrowser({ REPLY_BURST_WINDOW_MS: '0' });
    base = stage.base;
    owner = await signUpByApi(base, { tag: 'teams', companyName: 'Teams Outfitters' });
    const agent = (await owner.api('POST', '/api/agents', { name: 'Ava', systemPrompt: 'You are Ava.', handoffMessage: 'A colleague will answer shortly.' })).json;
    integrationId = (await owner.api('POST', '/api/integrations', { name: 'Telegram line', connectorType: 'msgplatform', agentId: agent.agent.id, webhookSecret: SECRET })).json.integration.id;
    mkdirSync(SCREENSHOTS, { recursive: true });
    page = await dashboardPage(stage.browser, { session: owner.session, timeoutMs: UI }, pageErrors);
  }, 90_000);

  afterAll(async () => {
    await stage?.close();
  });

  describe('teams and routing', () => {
    journeySteps('teams', () => page);

    step('Settings → Teams: create a team, add a member and route the integration to it', async () => {
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.goto(`${base}/#/settings`);
      await page.getByTestId('team-name-input').fill('Gift cards');
      await page.getByRole('button', { name: 'Create team' }).click();
      const teamRow = page.getByTestId('team-row');
      await expect.poll(() => teamRow.count(), { timeout: UI }).toBe(1);
      await teamRow.getByRole('checkbox').first().check();
      await teamRow.getByRole('button', { name: 'Save team' }).click();
      await expect.poll(() => teamRow.textContent(), { timeout: UI }).toContain('1 member');
      await page.getByTestId(`route-${integrationId}`).selectOption({ label: 'Gift cards' });
      await expect
        .poll(async () => (await owner.api('GET', '/api/teams')).json.routes as unknown[], { timeout: UI })
        .toEqual([{ integrationId, teamId: expect.any(String) }]);
      const { teams } = (await owner.api('GET', '/api/teams')).json as { teams: { memberIds: string[] }[] };
      expect(teams[0]!.memberIds).toHaveLength(1);
    });

    for (const width of [390, 1280, 1920]) {
      step(`at ${width} px the Teams card fits without scrolling sideways`, async () => {
        await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
        await page.goto(`${base}/#/settings`);
        const card = page.getByTestId('team-row').first();
        await expect.poll(() => card.isVisible(), { timeout: UI }).toBe(true);
        await card.scrollIntoViewIfNeeded();
        await noSidewaysScroll();
        await shoot(`teams-settings-${width}.png`);
      });
    }

    step('a handoff from the routed integration shows the team on the row and in the header', async () => {
      await postPlatformWebhook(base, integrationId, SECRET, { text: 'Hello, can I talk to a human about gift cards?', client_id: 'c-gift', channel_id: 1, transport: 'telegram', client: { name: 'Gina Gift' } });
      const deadline = Date.now() + UI;
      for (;;) {
        const routed = ((await owner.api('GET', '/api/conversations')).json.conversations as { id: string; teamId: string | null }[]).find((c) => c.teamId);
        if (routed) {
          conversationId = routed.id;
          break;
        }
        if (Date.now() > deadline) throw new Error('the conversation was never routed to the team');
        await new Promise((r) => setTimeout(r, 100));
      }
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.goto(`${base}/#/conversations/${conversationId}`);
      const row = page.getByTestId(`conversation-row-${conversationId}`);
      await expect.poll(() => row.getByTestId('row-team').textContent(), { timeout: UI }).toBe('Gift cards');
      await expect.poll(() => page.getByTestId('detail-team').textContent(), { timeout: UI }).toContain('team Gift cards');
    });

    step('the header’s Team select moves it out of the team and back, and the row follows', async () => {
      const select = page.getByTestId('team-select');
      await expect.poll(() => select.inputValue(), { timeout: UI }).not.toBe('');
      await select.selectOption({ label: 'No team' });
      const row = page.getByTestId(`conversation-row-${conversationId}`);
      await expect.poll(() => row.getByTestId('row-team').count(), { timeout: UI }).toBe(0);
      await select.selectOption({ label: 'Gift cards' });
      await expect.poll(() => row.getByTestId('row-team').textContent(), { timeout: UI }).toBe('Gift cards');
      const me = (await owner.api('GET', '/api/auth/me')).json.user.id as string;
      const events = (await owner.api('GET', `/api/conversations/${conversationId}/events`)).json.events as { type: string; data: { by: string } }[];
      expect(events.filter((e) => e.type === 'ConversationRoutedToTeam').map((e) => e.data.by)).toEqual(['routing', `user:${me}`, `user:${me}`]);
    });

    step('the Team filter lists the team’s conversations', async () => {
      await page.getByTestId('team-filter').selectOption({ label: 'Gift cards' });
      await expect.poll(() => page.getByTestId(`conversation-row-${conversationId}`).isVisible(), { timeout: UI }).toBe(true);
    });

    for (const width of [390, 1280, 1920]) {
      step(`at ${width} px the inbox row and header show the team without scrolling sideways`, async () => {
        await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
        await page.goto(`${base}/#/conversations/${conversationId}`);
        await expect.poll(() => page.getByTestId('detail-team').isVisible(), { timeout: UI }).toBe(true);
        await noSidewaysScroll();
        await shoot(`teams-conversation-${width}.png`);
      });
    }

    step('Settings → SLA targets: an urgent first-response target of 15 minutes is saved and measured', async () => {
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.goto(`${base}/#/settings`);
      await page.getByTestId('sla-urgent-firstResponseMinutes').fill('15');
      await page.getByTestId('sla-enabled').check();
      await page.getByRole('button', { name: 'Save SLA targets' }).click();
      await expect
        .poll(async () => (await owner.api('GET', '/api/settings/sla')).json as { enabled: boolean; targets: { urgent: { firstResponseMinutes: number | null } } }, { timeout: UI })
        .toMatchObject({ enabled: true, targets: { urgent: { firstResponseMinutes: 15 } } });
      await page.getByTestId('sla-form').scrollIntoViewIfNeeded();
      await shoot('sla-settings-1280.png');
      await page.setViewportSize({ width: 390, height: 844 });
      await page.getByTestId('sla-form').scrollIntoViewIfNeeded();
      await noSidewaysScroll();
      await shoot('sla-settings-390.png');
    });

    step('no page errors', async () => {
      expect(pageErrors).toEqual([]);
    });
  });
}
