import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { browserPrerequisites, dashboardPage, dismissNotifications, journeySteps, screenshotStep, signUpByApi, startServerAndBrowser, type ServerAndBrowser, type SignedUp } from '../support/browser.js';
import { postPlatformWebhook } from '../support/platformWebhook.js';

/**
 * Issue 25, items 1 and 2, in real Chromium: an inbox a support lead can read at 390, 1280 and 1920 px (every
 * row names its customer, channel, preview and time; chips wrap; nothing scrolls sideways), and assignment as a
 * team works: any teammate by name from a searchable picker, bulk assign and close, and the j/k/a/c/r shortcuts
 * listed behind "?". Screenshots go to test-results/screenshots. Needs the built dashboard and Chromium.
 */

const SECRET = 'whsec_team_inbox_0123456789abcdef';
const SCREENSHOTS = join(process.cwd(), 'test-results', 'screenshots');
const UI = 15_000;
const STEP = 60_000;

const LONG_NAME = 'Maximiliana Fernández-Oyelaran de la Cruz';
const BART = 'Bartholomew Okonkwo-Smith';
const CHIDI = 'Chidi Anagonye';

let stage: ServerAndBrowser;
let base: string;
let owner: SignedUp;
let page: Page;
let integrationId: number;
const byCustomer = new Map<string, string>();
const teammateIds = new Map<string, string>();
const pageErrors: string[] = [];

const api = (method: string, path: string, body?: unknown) => owner.api(method, path, body);

/** A teammate invited by `company`'s owner and joined under `name` (through the public accept route). */
async function joinTeam(name: string, role: 'agent' | 'admin', company: SignedUp = owner) {
  const invited = await company.api('POST', '/api/team/invitations', { email: `${name.split(' ')[0]!.toLowerCase()}-${Date.now()}@desk.example`, role });
  expect(invited.status).toBe(201);
  const url = invited.json.invitationUrl as string;
  const token = url.slice(url.indexOf('#/accept-invitation/') + '#/accept-invitation/'.length);
  const accepted = await fetch(`${base}/api/auth/accept-invitation`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token, name, password: 'teammate password' }) });
  expect(accepted.status).toBe(200);
  teammateIds.set(name, ((await accepted.json()) as { user: { id: string } }).user.id);
}

async function until<T>(read: () => Promise<T>, ok: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + UI;
  for (;;) {
    const value = await read();
    if (ok(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
}

const rows = () => page.locator('.conversation-list [data-testid^="conversation-row-"]');
const rowOf = (customer: string) => page.getByTestId(`conversation-row-${byCustomer.get(customer)}`);
const shoot2 = async (on: Page, name: string) => {
  await dismissNotifications(on);
  await on.screenshot({ path: join(SCREENSHOTS, name), animations: 'disabled' });
};
const shoot = async (name: string) => {
  await dismissNotifications(page);
  await page.screenshot({ path: join(SCREENSHOTS, name), animations: 'disabled' });
};
/** How far `locator`'s content reaches past its own box, sideways (0: it fits). */
const overflowOf = (locator: Locator) => locator.evaluate((el) => el.scrollWidth - el.clientWidth);

const step = screenshotStep('team-inbox', () => page, STEP);

if (browserPrerequisites()) {
  beforeAll(async () => {
    stage = await startServerAndBrowser({ REPLY_BURST_WINDOW_MS: '0' });
    base = stage.base;
    owner = await signUpByApi(base, { tag: 'desk', companyName: 'Desk Outfitters' });
    await joinTeam(BART, 'agent');
    await joinTeam(CHIDI, 'admin');
    const agent = (await api('POST', '/api/agents', { name: 'Ava', systemPrompt: 'You are Ava.', handoffMessage: 'A colleague will answer shortly.' })).json;
    integrationId = (await api('POST', '/api/integrations', { name: 'Telegram support line for the Nordic stores', connectorType: 'msgplatform', agentId: agent.agent.id, webhookSecret: SECRET })).json.integration.id;

    // Three customers; the empty knowledge base makes the builtin agent hand every question off ("Needs human").
    const customers: [string, string, string][] = [
      ['c-ingrid', 'Ingrid Berg', 'Is the blue kayak paddle still in stock?'],
      ['c-ola', 'Ola Nordmann', 'Hello, can I talk to a human please?'],
      ['c-max', LONG_NAME, 'My order from last week still has not arrived and the tracking page has not changed since Monday, what is going on?'],
    ];
    for (const [clientId, name, text] of customers) await postPlatformWebhook(base, integrationId, SECRET, { text, client_id: clientId, channel_id: 1, transport: 'telegram', client: { name } });
    const list = await until(
      async () => (await api('GET', '/api/conversations?limit=50')).json.conversations as { id: string; customer: { displayName: string }; handoff: unknown }[],
      (l) => l.length === 3 && l.every((c) => c.handoff),
    );
    for (const c of list) byCustomer.set(c.customer.displayName, c.id);
    expect([...byCustomer.keys()].sort()).toEqual(['Ingrid Berg', LONG_NAME, 'Ola Nordmann'].sort());

    // The long-named customer's row carries every chip at once: waiting, assignee, stage, unread.
    const stages = (await api('GET', '/api/pipeline')).json.pipeline.stages as { id: string; position: number }[];
    const lastStage = stages.sort((a, b) => b.position - a.position)[0]!;
    expect((await api('PUT', `/api/conversations/${byCustomer.get(LONG_NAME)}/stage`, { stageId: lastStage.id })).status).toBe(200);
    expect((await api('POST', `/api/conversations/${byCustomer.get(LONG_NAME)}/assign`, { assigneeId: teammateIds.get(BART) })).status).toBe(200);

    mkdirSync(SCREENSHOTS, { recursive: true });
    page = await dashboardPage(stage.browser, { session: owner.session, timeoutMs: UI }, pageErrors);
  }, 90_000);

  afterAll(async () => {
    await stage?.close();
  });

  describe('the inbox, readable at every width', () => {
    journeySteps('team-inbox-layout', () => page);

    for (const width of [390, 1280, 1920]) {
      step(`at ${width} px every row names its customer, channel, preview and time, and nothing scrolls sideways`, async () => {
        await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
        await page.goto(`${base}/#/conversations`);
        await page.getByTestId('view-tab-all').click();
        await expect.poll(() => rows().count()).toBe(3);

        for (const [customer] of byCustomer) {
          const row = rowOf(customer);
          const name = row.getByTestId('row-customer');
          expect(await name.isVisible(), `${customer} is shown`).toBe(true);
          // Long names are cut with an ellipsis, never squeezed to nothing by the chips.
          expect((await name.boundingBox())!.width, `${customer}'s name keeps its room`).toBeGreaterThan(width === 390 ? 150 : 180);
          expect(await name.textContent()).toBe(customer);
          expect(await row.getByTestId('row-channel').textContent()).toBe('Telegram support line for the Nordic stores · Telegram');
          expect(await row.getByTestId('row-preview').isVisible()).toBe(true);
          expect(await row.locator('time').isVisible()).toBe(true);
          // Every chip ends inside the card.
          const rowBox = (await row.boundingBox())!;
          for (const chip of await row.locator('.row-badges > *').all()) {
            const box = (await chip.boundingBox())!;
            expect(box.x + box.width, `a chip of ${customer} stays inside the row`).toBeLessThanOrEqual(rowBox.x + rowBox.width + 0.5);
          }
        }
        expect(await rowOf(LONG_NAME).getByTestId('row-preview').textContent()).toMatch(/^AI: A colleague will answer shortly\.$|^My order from last week/);
        expect(await rowOf(LONG_NAME).getByTestId('assignee').textContent()).toBe(BART);
        expect(await rowOf(LONG_NAME).getByTestId('needs-human').textContent()).toMatch(/^Waiting /);
        expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth), 'the page does not scroll sideways').toBeLessThanOrEqual(0);
        expect(await overflowOf(page.locator('.conversation-list')), 'the list does not scroll sideways').toBeLessThanOrEqual(0);
        await shoot(`inbox-${width}.png`);

        // The "Needs human" queue names its customers too.
        await page.getByTestId('view-tab-needs_human').click();
        await expect.poll(() => rows().count()).toBe(3);
        expect((await rows().getByTestId('row-customer').allTextContents()).sort()).toEqual([...byCustomer.keys()].sort());
        expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
        await shoot(`inbox-needs-human-${width}.png`);
      });
    }
  });

  describe('assignment as a team works', () => {
    journeySteps('team-inbox-assign', () => page);

    step('a lead assigns a conversation to a named teammate from the searchable picker; the name shows in the row, the detail and the history', async () => {
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.goto(`${base}/#/conversations/${byCustomer.get('Ingrid Berg')}`);
      await expect.poll(() => page.getByTestId('assignee-label').textContent()).toBe('Unassigned');
      await page.getByTestId('assign-to').click();
      const picker = page.getByTestId('assign-picker');
      await expect.poll(() => picker.getByTestId('assign-option').count()).toBe(3);
      await page.getByTestId('assign-search').fill('chid');
      await expect.poll(() => picker.getByTestId('assign-option').allTextContents()).toEqual([expect.stringContaining(CHIDI)]);
      await page.keyboard.press('Enter');
      await expect.poll(() => page.getByTestId('assignee-label').textContent()).toBe(`Assigned to ${CHIDI}`);
      await expect.poll(() => rowOf('Ingrid Berg').getByTestId('assignee').textContent()).toBe(CHIDI);
      const stored = (await api('GET', `/api/conversations/${byCustomer.get('Ingrid Berg')}`)).json.conversation;
      expect(stored.assigneeId).toBe(teammateIds.get(CHIDI));

      await page.getByRole('tab', { name: 'Event history' }).click();
      await expect.poll(() => page.getByText(`Assigned to ${CHIDI} by you.`).count()).toBe(1);
      await page.getByRole('tab', { name: 'Messages' }).click();
      expect(await page.getByText('Teammate', { exact: true }).count()).toBe(0);
      expect(await page.getByText('Assigned to a teammate').count()).toBe(0);
    });

    step('the keyboard: j/k move through the list, ? lists the shortcuts, a opens the picker, r goes to the reply box, c asks to close', async () => {
      await page.goto(`${base}/#/conversations`);
      // The list as shown at each moment: opening a conversation (read, live updates) may move rows meanwhile.
      const order = () => rows().evaluateAll((els) => els.map((el) => el.getAttribute('data-testid')!.slice('conversation-row-'.length)));
      await page.getByTestId('view-tab-all').click();
      await expect.poll(() => rows().count()).toBe(3);
      // The "All" view's own page has arrived (the previous view's rows may show until it does): the same order twice.
      await expect
        .poll(async () => {
          const before = JSON.stringify(await order());
          await new Promise((r) => setTimeout(r, 300));
          return (await page.locator('ul.conversation-list').getAttribute('aria-busy')) !== 'true' && JSON.stringify(await order()) === before;
        })
        .toBe(true);
      const opened = () => page.evaluate(() => decodeURIComponent(location.hash.slice('#/conversations/'.length)));
      const move = async (key: 'j' | 'k', from: string | null) => {
        await page.keyboard.press(key);
        await expect
          .poll(async () => {
            const now = await order();
            const at = now.indexOf(await opened());
            return from === null ? at === 0 : at === now.indexOf(from) + (key === 'j' ? 1 : -1);
          })
          .toBe(true);
        return opened();
      };
      const first = await move('j', null);
      const second = await move('j', first);
      expect(second).not.toBe(first);
      await move('k', second);
      await page.getByTestId('assignee-label').waitFor();

      await page.keyboard.press('?');
      const help = page.getByTestId('shortcut-help');
      await help.waitFor();
      for (const does of ['Next conversation', 'Previous conversation', 'Assign the open conversation to a teammate', 'Close the open conversation', 'Reply: go to the reply box']) expect(await help.getByText(does).count(), does).toBe(1);
      await page.keyboard.press('Escape');
      await expect.poll(() => help.count()).toBe(0);

      await page.keyboard.press('a');
      await page.getByTestId('assign-picker').waitFor();
      await page.keyboard.press('Escape');
      await expect.poll(() => page.getByTestId('assign-picker').count()).toBe(0);

      await page.keyboard.press('r');
      await expect.poll(() => page.evaluate(() => document.activeElement?.closest('.reply-box') !== null && document.activeElement?.tagName === 'TEXTAREA')).toBe(true);
      // The key went to the shortcut, not into the reply.
      expect(await page.getByLabel('Reply as operator').inputValue()).toBe('');
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());

      await page.keyboard.press('c');
      await page.getByRole('dialog', { name: 'Close this conversation?' }).waitFor();
      await page.getByRole('button', { name: 'Cancel' }).click();
      await expect.poll(() => page.getByRole('dialog', { name: 'Close this conversation?' }).count()).toBe(0);
    });

    step('bulk: two selected rows are assigned to one teammate, then both are closed', async () => {
      await page.goto(`${base}/#/conversations`);
      await page.getByTestId('view-tab-all').click();
      await expect.poll(() => rows().count()).toBe(3);
      const two = ['Ola Nordmann', 'Ingrid Berg'];
      for (const customer of two) await page.getByRole('checkbox', { name: `Select the conversation with ${customer}` }).check();
      await expect.poll(() => page.getByTestId('bulk-count').textContent()).toBe('2 selected');
      await page.getByTestId('bulk-assign').click();
      await page.getByTestId('assign-search').fill('bart');
      await page.getByTestId('assign-option').filter({ hasText: BART }).click();
      for (const customer of two) await expect.poll(() => rowOf(customer).getByTestId('assignee').textContent()).toBe(BART);
      await expect.poll(() => page.getByTestId('bulk-bar').count()).toBe(0); // the selection clears once done

      for (const customer of two) await page.getByRole('checkbox', { name: `Select the conversation with ${customer}` }).check();
      await page.getByTestId('bulk-close').click();
      await page.getByRole('dialog', { name: 'Close 2 conversations?' }).getByRole('button', { name: 'Close 2 conversations' }).click();
      for (const customer of two) {
        await expect.poll(() => rowOf(customer).locator('[data-state]').getAttribute('data-state')).toBe('closed');
        const stored = (await api('GET', `/api/conversations/${byCustomer.get(customer)}`)).json.conversation;
        expect(stored.session.state).toBe('closed');
        expect(stored.assigneeId).toBe(teammateIds.get(BART));
      }
      // The third was left alone.
      expect((await api('GET', `/api/conversations/${byCustomer.get(LONG_NAME)}`)).json.conversation.session.state).not.toBe('closed');
      expect(pageErrors).toEqual([]);
    });
  });

  describe('automatic assignment: round-robin with a capacity', () => {
    let lead: SignedUp;
    let leadPage: Page;
    const DANA = 'Dana Osei';
    const ELI = 'Eli Marsh';
    const rrIds = new Map<string, string>();
    journeySteps('team-inbox-round-robin', () => leadPage);

    step('the lead steps away and turns automatic assignment on with room for one conversation each', async () => {
      lead = await signUpByApi(base, { tag: 'rr', companyName: 'Round Robin Outfitters' });
      await joinTeam(DANA, 'agent', lead);
      await joinTeam(ELI, 'agent', lead);
      leadPage = await dashboardPage(stage.browser, { session: lead.session, timeoutMs: UI }, pageErrors);
      await leadPage.setViewportSize({ width: 1280, height: 900 });
      await leadPage.goto(`${base}/#/team`);
      await leadPage.getByTestId('availability-away').click();
      await expect.poll(() => leadPage.locator(`[data-testid="teammate-row"][data-email="${lead.email}"]`).getByTestId('availability').getAttribute('data-availability')).toBe('away');
      const form = leadPage.getByTestId('auto-assignment-form');
      await form.getByRole('switch', { name: 'Assign handed-off conversations automatically' }).check();
      await form.getByLabel('Open conversations per teammate').fill('1');
      await form.getByRole('button', { name: 'Save' }).click();
      await expect.poll(async () => (await lead.api('GET', '/api/settings/auto-assignment')).json).toEqual({ autoAssignment: { enabled: true, capacity: 1 } });
    });

    step('three customers are handed off: the first two go one to each teammate by name, the third waits unassigned', async () => {
      const agent = (await lead.api('POST', '/api/agents', { name: 'Ava', systemPrompt: 'You are Ava.', handoffMessage: 'A colleague will answer shortly.' })).json;
      const integration = (await lead.api('POST', '/api/integrations', { name: 'Web shop line', connectorType: 'msgplatform', agentId: agent.agent.id, webhookSecret: SECRET })).json.integration.id as number;
      for (const [clientId, name] of [['rr-1', 'Freya Lund'], ['rr-2', 'Gustav Holm'], ['rr-3', 'Hilde Berg']]) {
        await postPlatformWebhook(base, integration, SECRET, { text: 'Where is my order?', client_id: clientId, channel_id: 1, transport: 'telegram', client: { name } });
        const conversation = await until(
          async () => ((await lead.api('GET', '/api/conversations?view=needs_human&limit=50')).json.conversations as { id: string; customer: { displayName: string } }[]).find((c) => c.customer.displayName === name),
          (c) => c !== undefined,
        );
        expect(conversation, name).toBeDefined();
        rrIds.set(name!, conversation!.id);
      }
      await leadPage.goto(`${base}/#/conversations`);
      const assignee = (name: string) => leadPage.getByTestId(`conversation-row-${rrIds.get(name)}`).getByTestId('assignee');
      await expect.poll(async () => [await assignee('Freya Lund').textContent(), await assignee('Gustav Holm').textContent()].sort()).toEqual([DANA, ELI]);
      expect(await assignee('Hilde Berg').count()).toBe(0);
      await leadPage.getByTestId('view-tab-unassigned').click();
      await expect.poll(() => leadPage.locator('.conversation-list [data-testid="row-customer"]').allTextContents()).toEqual(['Hilde Berg']);
      await leadPage.getByTestId('view-tab-all').click();
      await shoot2(leadPage, 'round-robin-before.png');
    });

    step('closing one frees its teammate: the waiting conversation is assigned to them at once, and its history says why', async () => {
      const freyaOwner = (await leadPage.getByTestId(`conversation-row-${rrIds.get('Freya Lund')}`).getByTestId('assignee').textContent())!;
      await leadPage.getByTestId(`conversation-row-${rrIds.get('Freya Lund')}`).click();
      await leadPage.getByTestId('assignee-label').waitFor();
      await leadPage.keyboard.press('c');
      await leadPage.getByRole('dialog', { name: 'Close this conversation?' }).getByRole('button', { name: 'Close session' }).click();
      await expect.poll(() => leadPage.getByTestId(`conversation-row-${rrIds.get('Hilde Berg')}`).getByTestId('assignee').textContent(), { timeout: UI }).toBe(freyaOwner);
      await leadPage.getByTestId(`conversation-row-${rrIds.get('Hilde Berg')}`).click();
      await expect.poll(() => leadPage.getByTestId('assignee-label').textContent()).toBe(`Assigned to ${freyaOwner}`);
      await leadPage.getByRole('tab', { name: 'Event history' }).click();
      await expect.poll(() => leadPage.getByText(`Assigned to ${freyaOwner} automatically (round-robin).`).count()).toBe(1);
      // The picker shows who is online and how full each is.
      await leadPage.getByTestId('assign-to').click();
      await expect.poll(() => leadPage.getByTestId('assign-option').filter({ hasText: freyaOwner }).getByTestId('assign-availability').textContent()).toBe('Online · 1 open');
      await expect.poll(() => leadPage.getByTestId('assign-option').filter({ hasText: lead.email }).getByTestId('assign-availability').textContent()).toBe('Away · 0 open');
      await leadPage.keyboard.press('Escape');
      await shoot2(leadPage, 'round-robin-after.png');
      expect(pageErrors).toEqual([]);
    });
  });
}
