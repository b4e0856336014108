import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { browserPrerequisites, dashboardPage, signUpByApi, startServerAndBrowser, withFailureScreenshot, type ServerAndBrowser, type SignedUp } from '../support/browser.js';
import { postPlatformWebhook } from '../support/platformWebhook.js';
import { uniqueEmail } from '../support/testServer.js';

/**
 * Talking to teammates inside a conversation, in real Chromium with two people signed in at once (two browser
 * contexts): the support lead writes an internal note that @mentions a teammate, and the teammate's bell counts it
 * and a toast tells them, live; the lead gives them the conversation, and they hear of that too. The note shows in
 * the timeline as the team's own (yellow), never as a message to the customer.
 * Needs the built dashboard (`npm run build`) and /usr/bin/chromium.
 */

const SECRET = 'whsec_notes_browser_0123456789abcdef';
const UI_TIMEOUT = 20_000;
const UI = { timeout: UI_TIMEOUT };

let stage: ServerAndBrowser;
let base: string;
let lead: SignedUp;
let leadPage: Page;
let tara: { id: string; session: unknown };
let taraPage: Page;
let integrationId: number;
const pageErrors: string[] = [];

async function joins(name: string): Promise<{ id: string; session: unknown }> {
  const invited = await lead.api('POST', '/api/team/invitations', { email: uniqueEmail('notes-browser'), role: 'agent' });
  expect(invited.status).toBe(201);
  const token = decodeURIComponent((invited.json.invitationUrl as string).split('/').at(-1)!);
  const res = await fetch(`${base}/api/auth/accept-invitation`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token, name, password: 'teammate password' }) });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { session: unknown; user: { id: string } };
  return { id: body.user.id, session: body.session };
}

const shot = (page: Page, name: string) => page.screenshot({ path: join(process.cwd(), 'test-results', `${name}.png`), fullPage: false }).catch(() => {});

if (browserPrerequisites()) {
  beforeAll(async () => {
    stage = await startServerAndBrowser({ REPLY_BURST_WINDOW_MS: '0' });
    base = stage.base;
    lead = await signUpByApi(base, { tag: 'notes-lead', companyName: 'Notes Outfitters' });
    const agent = (await lead.api('POST', '/api/agents', { name: 'Ava', systemPrompt: 'You are Ava.' })).json;
    integrationId = (await lead.api('POST', '/api/integrations', { name: 'Telegram line', connectorType: 'msgplatform', agentId: agent.agent.id, webhookSecret: SECRET })).json.integration.id;
    tara = await joins('Tara Quill');
    leadPage = await dashboardPage(stage.browser, { session: lead.session, timeoutMs: UI_TIMEOUT }, pageErrors);
    taraPage = await dashboardPage(stage.browser, { session: tara.session, timeoutMs: UI_TIMEOUT }, pageErrors);
  }, 60_000);

  afterAll(async () => {
    await stage?.close();
  });

  it('a note mentioning a teammate reaches their bell and a toast; assigning them the conversation does too', async () => {
    await postPlatformWebhook(base, integrationId, SECRET, { text: 'My refund never arrived', client_id: 'notes-customer-1', channel_id: 1, transport: 'telegram' });
    const conversationId = await expect
      .poll(async () => ((await lead.api('GET', '/api/conversations')).json.conversations as { id: string }[])[0]?.id, UI)
      .toBeTruthy()
      .then(async () => ((await lead.api('GET', '/api/conversations')).json.conversations as { id: string }[])[0]!.id);

    // The teammate has the dashboard open and listening before anything happens (live events are not replayed).
    // The browser's Notification API and the tab's visibility, as the teammate's browser would report them: a
    // stand-in records what the dashboard shows, so the opt-in can be checked without an OS notification.
    await taraPage.context().addInitScript(() => {
      const w = window as unknown as { __notified: string[]; __hidden: boolean; Notification: unknown };
      w.__notified = [];
      w.__hidden = false;
      Object.defineProperty(Document.prototype, 'hidden', { configurable: true, get: () => w.__hidden });
      w.Notification = class {
        static permission = 'granted';
        static requestPermission = () => Promise.resolve('granted');
        constructor(_title: string, options?: { body?: string }) {
          w.__notified.push(options?.body ?? '');
        }
      };
    });
    await withFailureScreenshot(taraPage, 'notes-teammate-open', async () => {
      await taraPage.goto(`${base}/#/conversations`);
      await expect.poll(() => taraPage.getByTestId('live-indicator').getAttribute('data-status'), UI).toBe('live');
      await expect.poll(() => taraPage.getByTestId('notification-count').count(), UI).toBe(0);
    });

    // The lead writes a note in the conversation: it shows as the team's own, not as a message to the customer.
    await withFailureScreenshot(leadPage, 'notes-lead-note', async () => {
      await leadPage.goto(`${base}/#/conversations/${conversationId}`);
      await leadPage.getByLabel('Internal note').fill('@Tara can you check the refund with the bank?');
      await leadPage.getByRole('button', { name: 'Add note' }).click();
      const note = leadPage.locator('[data-testid="message"][data-author="note"]');
      await expect.poll(() => note.count(), UI).toBe(1);
      await expect.poll(() => note.textContent(), UI).toContain('Internal note · you');
      expect(await note.evaluate((el) => getComputedStyle(el).backgroundColor)).toBe('rgb(254, 249, 195)');
      await shot(leadPage, 'notes-lead-1280');
    });
    const messages = (await lead.api('GET', `/api/conversations/${conversationId}`)).json.messages as { author: string }[];
    expect(messages.filter((m) => m.author === 'operator')).toEqual([]);

    // The teammate: the bell counts it and a toast says who mentioned them, without a reload.
    await withFailureScreenshot(taraPage, 'notes-teammate-mentioned', async () => {
      await expect.poll(() => taraPage.getByTestId('notification-count').textContent(), UI).toBe('1');
      await expect.poll(() => taraPage.getByTestId('toast').filter({ hasText: 'mentioned you' }).count(), UI).toBeGreaterThan(0);
    });

    // The lead gives the conversation to the teammate: they hear of that too.
    const assigned = await lead.api('POST', `/api/conversations/${conversationId}/assign`, { assigneeId: tara.id });
    expect(assigned.status).toBe(200);
    await withFailureScreenshot(taraPage, 'notes-teammate-assigned', async () => {
      await expect.poll(() => taraPage.getByTestId('notification-count').textContent(), UI).toBe('2');
      await expect.poll(() => taraPage.getByTestId('toast').filter({ hasText: 'assigned you the conversation' }).count(), UI).toBeGreaterThan(0);
      await taraPage.getByTestId('notification-bell').click();
      const items = taraPage.getByTestId('notification-item');
      await expect.poll(() => items.count(), UI).toBe(2);
      await expect.poll(() => taraPage.getByTestId('notification-panel').textContent(), UI).toContain('mentioned you');
      for (const [width, height] of [[390, 844], [1280, 800], [1920, 1080]] as const) {
        await taraPage.setViewportSize({ width, height });
        await shot(taraPage, `notes-bell-${width}`);
      }
      await taraPage.setViewportSize({ width: 1280, height: 800 });

      // Opening one reads it and goes to the conversation, where the note is there for the teammate too.
      await items.filter({ hasText: 'mentioned you' }).click();
      await expect.poll(() => taraPage.getByTestId('notification-count').textContent(), UI).toBe('1');
      await expect.poll(() => taraPage.locator('[data-testid="message"][data-author="note"]').textContent(), UI).toContain('check the refund with the bank');
      for (const [width, height] of [[390, 844], [1920, 1080]] as const) {
        await taraPage.setViewportSize({ width, height });
        await shot(taraPage, `notes-timeline-${width}`);
      }
      await taraPage.setViewportSize({ width: 1280, height: 800 });
    });

    // Opted in, with the tab hidden, the next mention also reaches the browser's notifications; while the tab was
    // visible nothing went there.
    await withFailureScreenshot(taraPage, 'notes-teammate-browser-notification', async () => {
      expect(await taraPage.evaluate(() => (window as unknown as { __notified: string[] }).__notified)).toEqual([]);
      await taraPage.getByTestId('notification-bell').click();
      await taraPage.getByLabel('Browser notifications while this tab is hidden').check();
      await taraPage.keyboard.press('Escape');
      await taraPage.evaluate(() => {
        (window as unknown as { __hidden: boolean }).__hidden = true;
      });
      const again = await lead.api('POST', `/api/conversations/${conversationId}/notes`, { text: '@Tara one more thing: the bank replied' });
      expect(again.status).toBe(201);
      await expect.poll(() => taraPage.evaluate(() => (window as unknown as { __notified: string[] }).__notified), UI).toEqual([expect.stringContaining('one more thing: the bank replied')]);
    });

    // The lead lets the AI read notes (Settings → Internal notes); off until then.
    await withFailureScreenshot(leadPage, 'notes-lead-settings', async () => {
      expect((await lead.api('GET', '/api/settings/notes')).json).toEqual({ notes: { shareWithAi: false } });
      await leadPage.goto(`${base}/#/settings`);
      const share = leadPage.getByLabel('Let the AI agents read internal notes as context');
      await expect.poll(() => share.isEnabled(), UI).toBe(true);
      await share.check();
      await expect.poll(async () => (await lead.api('GET', '/api/settings/notes')).json.notes.shareWithAi, UI).toBe(true);
      expect(pageErrors).toEqual([]);
    });
  }, 120_000);
}
