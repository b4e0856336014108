import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import {
  browserPrerequisites,
  dashboardPage,
  navLink,
  pageHeading,
  screenshotStep,
  signUpByApi,
  signUpInDashboard,
  startServerAndBrowser,
  type ServerAndBrowser,
  type SignedUp,
} from '../support/browser.js';
import { eventually } from '../support/eventually.js';
import { uniqueEmail } from '../support/testServer.js';

/**
 * The small things a support lead trying the desk ran into, each as they saw it in headless Chromium: focus kept
 * while typing a web-chat greeting, table cells that never break a word, the payload button in view, whole-number
 * chart axes, the "Needs human" count in view, removing teammates, the owner's name, a note not lost on reload,
 * "1 message", no empty playground sessions, no refused requests for an agent opening Settings, and the Ollama
 * preset explained. Needs `npm run build` and /usr/bin/chromium.
 */

const TIMEOUT = 60_000;
const UI_TIMEOUT = 15_000;
const SECRET = 'whsec_desk_polish_0123456789abcdef';
const ANSWER = 'We ship to Norway, Sweden and Denmark within 3 business days.';

let stage: ServerAndBrowser;
let base: string;
let owner: SignedUp;
let page: Page;
let integrationId: number;
let chatId: number;
let agentId: string;
const conversations: { answered?: string; handedOff?: string; unanswered?: string } = {};

/** The words of `cell` whose letters sit on more than one line: a word broken in the middle. */
const brokenWords = (cell: Locator) =>
  cell.evaluate((el) => {
    const broken: string[] = [];
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent ?? '';
      for (const match of text.matchAll(/\S+/g)) {
        const range = document.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
        if (tops.size > 1) broken.push(match[0]);
      }
    }
    return broken;
  });

/** Every body cell of the tables on the page: no word broken, nothing wider than its cell. */
async function expectTidyCells(p: Page) {
  const cells = p.locator('table.table tbody td');
  const count = await cells.count();
  expect(count).toBeGreaterThan(0);
  for (let i = 0; i < count; i++) {
    const cell = cells.nth(i);
    const text = (await cell.textContent())?.trim() ?? '';
    expect(await brokenWords(cell), `a word broken in "${text}"`).toEqual([]);
    const { scroll, client } = await cell.evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
    expect(scroll, `"${text}" overflows its cell`).toBeLessThanOrEqual(client);
  }
}

/** `inner` lies wholly inside `outer` on the screen. */
async function expectInside(inner: Locator, outer: Locator, what: string) {
  const a = (await inner.boundingBox())!;
  const b = (await outer.boundingBox())!;
  expect(a, what).not.toBeNull();
  expect(a.x, `${what}: left edge`).toBeGreaterThanOrEqual(b.x - 0.5);
  expect(a.x + a.width, `${what}: right edge`).toBeLessThanOrEqual(b.x + b.width + 0.5);
  expect(a.y, `${what}: top edge`).toBeGreaterThanOrEqual(b.y - 0.5);
  expect(a.y + a.height, `${what}: bottom edge`).toBeLessThanOrEqual(b.y + b.height + 0.5);
}

async function sendTestMessage(text: string): Promise<string> {
  const sent = await owner.api('POST', `/api/integrations/${integrationId}/test-message`, { text });
  expect(sent.status).toBe(202);
  return sent.json.conversationId as string;
}

/** An agent-role teammate, invited by the owner and joined through the API; their session. */
async function agentTeammate(name: string): Promise<{ id: string; email: string; session: unknown }> {
  const email = uniqueEmail('desk-agent');
  const invited = await owner.api('POST', '/api/team/invitations', { email, role: 'agent' });
  expect(invited.status).toBe(201);
  const token = decodeURIComponent((invited.json.invitationUrl as string).split('/').at(-1)!);
  const res = await fetch(`${base}/api/auth/accept-invitation`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token, name, password: 'agent password' }),
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { session: unknown; user: { id: string } };
  return { id: body.user.id, email, session: body.session };
}

if (browserPrerequisites()) {
  beforeAll(async () => {
    stage = await startServerAndBrowser({ REPLY_BURST_WINDOW_MS: '50' });
    base = stage.base;
    owner = await signUpByApi(base, { tag: 'desk-polish', companyName: 'Desk Polish' });
    expect((await owner.api('POST', '/api/knowledge-base/documents', { title: 'Shipping', content: `# Shipping\n\n${ANSWER}` })).status).toBe(201);
    expect((await owner.api('POST', '/api/knowledge-base/documents', { title: 'Returns and refunds for international shipping', content: 'Returns are free within 30 days.' })).status).toBe(201);
    agentId = (await owner.api('POST', '/api/agents', { name: 'Ava' })).json.agent.id;
    integrationId = (await owner.api('POST', '/api/integrations', { name: 'Try-out', connectorType: 'msgplatform', webhookSecret: SECRET, agentId })).json.integration.id;
    chatId = (await owner.api('POST', '/api/integrations', { name: 'Site chat', connectorType: 'webchat', allowedOrigins: ['https://shop.example'], agentId })).json.integration.id;

    conversations.answered = await sendTestMessage('Do you ship to Norway?');
    conversations.handedOff = await sendTestMessage('Can I pay with bitcoin?');
    // An integration without an agent: its customer's one message stays the conversation's only one.
    const idle = (await owner.api('POST', '/api/integrations', { name: 'No agent', connectorType: 'msgplatform', webhookSecret: SECRET })).json.integration.id;
    const unanswered = await owner.api('POST', `/api/integrations/${idle}/test-message`, { text: 'Anyone there?' });
    expect(unanswered.status).toBe(202);
    conversations.unanswered = unanswered.json.conversationId;
    await eventually(async () => expect((await owner.api('GET', '/api/analytics')).json.totals.aiReplies).toBe(2), 20_000, 100);
    // A delivery with a wrong signature: the webhook log's INVALID_SIGNATURE.
    const forged = await fetch(`${base}/api/webhook/msgplatform/${integrationId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-webhook-signature': `sha256=${'0'.repeat(64)}` },
      body: JSON.stringify({ text: 'forged', client_id: 'x', channel_id: 'y', transport: 'telegram' }),
    });
    expect(forged.status).toBe(401);

    page = await dashboardPage(stage.browser, { session: owner.session, timeoutMs: UI_TIMEOUT, viewport: { width: 1280, height: 900 } });
  });

  afterAll(async () => {
    await stage?.close();
  });

  const step = screenshotStep('desk-polish', () => page, TIMEOUT);

  describe('the smaller things, each fixed', () => {
    step('typing a web-chat greeting keeps the keyboard focus while the preview reloads', async () => {
      await page.goto(`${base}/#/integrations/${chatId}`);
      const greeting = page.getByTestId('webchat-greeting');
      await greeting.click();
      await page.keyboard.type('Hello', { delay: 30 });
      // The preview reloads 300 ms after typing stops; the widget in it opens.
      await page.waitForTimeout(1500);
      await page.keyboard.type(' there', { delay: 30 });
      await page.waitForTimeout(1500);
      await page.keyboard.type('!', { delay: 30 });
      expect(await greeting.inputValue()).toBe('Hello there!');
      expect(await greeting.evaluate((el) => el === document.activeElement)).toBe(true);
    });

    step('table cells never break a word in the middle nor overflow (knowledge base, webhook logs)', async () => {
      for (const width of [1280, 1024]) {
        await page.setViewportSize({ width, height: 900 });
        await page.goto(`${base}/#/knowledge-base`);
        await page.getByTestId('kb-document-row').nth(1).waitFor();
        await expectTidyCells(page);
        await page.goto(`${base}/#/webhook-logs`);
        await page.locator('[data-testid="webhook-log-row"][data-outcome="rejected"]').waitFor();
        await expect.poll(() => page.getByRole('table').textContent()).toContain('INVALID_SIGNATURE');
        await expectTidyCells(page);
      }
      await page.setViewportSize({ width: 1280, height: 900 });
    });

    step('the webhook log\'s "Hide payload" button stays fully visible inside its table', async () => {
      await page.goto(`${base}/#/webhook-logs`);
      const row = page.locator('[data-testid="webhook-log-row"][data-outcome="processed"]').first();
      await row.getByRole('button', { name: 'Payload', exact: true }).click();
      const hide = page.getByRole('button', { name: 'Hide payload', exact: true });
      await hide.waitFor();
      await page.locator('pre.code-box').first().waitFor();
      await expectInside(hide, page.locator('.table-wrap').first(), 'Hide payload in the table');
      const wrap = await page.locator('.table-wrap').first().evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
      expect(wrap.scroll, 'the table scrolls sideways').toBeLessThanOrEqual(wrap.client);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1280);
    });

    step('the analytics y axis counts in whole numbers, each label once', async () => {
      await page.goto(`${base}/#/analytics`);
      const chart = page.getByTestId('chart-conversations');
      await chart.locator('.uplot canvas').waitFor();
      await expect.poll(() => chart.getAttribute('data-y-labels')).not.toBeNull();
      const labels = JSON.parse((await chart.getAttribute('data-y-labels'))!) as string[];
      expect(labels.length).toBeGreaterThan(1);
      for (const label of labels) expect(label).toMatch(/^\d+$/);
      expect(new Set(labels).size).toBe(labels.length);
    });

    step('the "Needs human" tab count is fully visible at 1280 px', async () => {
      await page.goto(`${base}/#/conversations`);
      const count = page.getByTestId('view-count-needs_human');
      await expect.poll(async () => Number(await count.textContent())).toBeGreaterThan(0);
      const tablist = page.getByRole('tablist', { name: 'Inbox views' });
      await expectInside(count, page.getByTestId('view-tab-needs_human'), 'count in its tab');
      await expectInside(page.getByTestId('view-tab-needs_human'), tablist, 'tab in the tab list');
      expect(await tablist.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
    });

    step('a conversation\'s customer panel says "1 message", and a note typed and not saved is not lost to a reload or a page change', async () => {
      await page.goto(`${base}/#/conversations/${conversations.unanswered}`);
      const list = page.getByTestId('customer-conversations');
      await expect.poll(() => list.textContent()).toMatch(/This conversation · 1 message · /);
      await page.goto(`${base}/#/conversations/${conversations.handedOff}`);
      await expect.poll(() => list.textContent()).toMatch(/This conversation · 2 messages · /);
      const note = page.getByTestId('customer-note-input');
      await note.click();
      await note.fill('Prefers email');
      // Leaving for another page asks first.
      await navLink(page, 'Agents').click();
      const leave = page.getByRole('dialog');
      await leave.waitFor();
      await leave.getByRole('button', { name: 'Stay on this page', exact: true }).click();
      expect(await note.inputValue()).toBe('Prefers email');
      // A reload asks the browser's own question.
      const asked = new Promise<string>((resolve) => page.once('dialog', (dialog) => void dialog.dismiss().then(() => resolve(dialog.type()))));
      void page.reload().catch(() => {});
      expect(await asked).toBe('beforeunload');
      expect(await note.inputValue()).toBe('Prefers email');
      await page.getByTestId('customer-note-save').click();
      await page.getByTestId('customer-note-meta').waitFor();
    });

    step('the owner is not offered "Remove" on themselves; a refused removal closes its dialog', async () => {
      const teammate = await agentTeammate('Robin Agent');
      await page.goto(`${base}/#/team`);
      const me = page.locator(`[data-testid="teammate-row"][data-email="${owner.email}"]`);
      await me.waitFor();
      expect(await me.getByRole('button', { name: /^Remove/ }).count()).toBe(0);
      const them = page.locator(`[data-testid="teammate-row"][data-email="${teammate.email}"]`);
      await them.getByRole('button', { name: `Remove ${teammate.email}` }).click();
      const dialog = page.getByRole('dialog');
      await dialog.waitFor();
      // Someone else removed them meanwhile: the service refuses, and the dialog does not stay open.
      expect((await owner.api('DELETE', `/api/team/${teammate.id}`)).status).toBe(204);
      await dialog.getByRole('button', { name: 'Remove', exact: true }).click();
      await dialog.waitFor({ state: 'hidden' });
    });

    step('an owner without a name sets it on the Team page, and a new sign-up asks for it', async () => {
      await page.goto(`${base}/#/team`);
      const me = page.locator(`[data-testid="teammate-row"][data-email="${owner.email}"]`);
      await expect.poll(() => me.locator('td').first().textContent()).toContain('—');
      await page.getByLabel('Your name').fill('Olga Owner');
      await page.getByRole('button', { name: 'Save name', exact: true }).click();
      await expect.poll(() => me.locator('td').first().textContent()).toContain('Olga Owner');
      const fresh = await dashboardPage(stage.browser, { timeoutMs: UI_TIMEOUT });
      try {
        const email = uniqueEmail('desk-signup');
        await signUpInDashboard(fresh, base, { companyName: 'Named Co', email, name: 'Nina Newcomer' });
        await navLink(fresh, 'Team').click();
        await pageHeading(fresh, 'Team').waitFor();
        const row = fresh.locator(`[data-testid="teammate-row"][data-email="${email}"]`);
        // The Team list is read once per visit: on a loaded machine the sign-up can answer before the read models
        // caught up (read-your-writes gives up after its timeout), so the newcomer looks again, as a person would.
        await expect
          .poll(async () => {
            if ((await row.count()) === 0) await fresh.reload();
            return (await row.count()) === 0 ? '' : await row.locator('td').first().textContent();
          }, { timeout: 20_000, interval: 1000 })
          .toContain('Nina Newcomer');
      } finally {
        await fresh.context().close();
      }
    });

    step('"Try it" leaves no empty playground session: the session starts with the first question', async () => {
      const sessions = async () => ((await owner.api('GET', `/api/playground?agentId=${agentId}`)).json.sessions as unknown[]).length;
      const before = await sessions();
      await page.goto(`${base}/#/agents`);
      await page.getByTestId('agent-try-it').click();
      await pageHeading(page, 'Playground: Ava').waitFor();
      await page.getByTestId('playground-input').waitFor();
      await page.waitForTimeout(500);
      expect(await sessions()).toBe(before);
      await page.getByTestId('playground-input').fill('Do you ship to Norway?');
      await page.getByTestId('playground-send').click();
      await expect.poll(() => page.getByTestId('playground-answer').locator('.message-text').textContent(), { timeout: 15_000 }).toContain('We ship to Norway');
      expect(await sessions()).toBe(before + 1);
      // The next visit continues that session and starts none.
      await page.goto(`${base}/#/agents`);
      await page.getByTestId('agent-try-it').click();
      await page.getByTestId('playground-answer').waitFor();
      expect(await sessions()).toBe(before + 1);
    });

    step('an agent opening Settings sees "Not available for your role" without any refused request', async () => {
      const teammate = await agentTeammate('Sam Agent');
      const agentPage = await dashboardPage(stage.browser, { session: teammate.session, timeoutMs: UI_TIMEOUT });
      try {
        const refused: string[] = [];
        agentPage.on('response', (res) => {
          if (res.status() === 403) refused.push(res.url());
        });
        await agentPage.goto(`${base}/#/settings`);
        await agentPage.getByText('Not available for your role').waitFor();
        await agentPage.waitForTimeout(500);
        expect(refused).toEqual([]);
      } finally {
        await agentPage.context().close();
      }
    });

    step('the Ollama preset says what a local address needs', async () => {
      await page.goto(`${base}/#/llm-settings`);
      await page.getByRole('radio', { name: /OpenAI-compatible/ }).check();
      await page.getByRole('button', { name: /^Ollama/ }).click();
      const note = page.getByTestId('llm-local-address-note');
      await note.waitFor();
      expect(await note.textContent()).toContain('ALLOW_PRIVATE_PLATFORM_URLS=true');
    });
  });
}
