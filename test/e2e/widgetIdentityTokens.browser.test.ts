import { createHmac } from 'node:crypto';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createAgent, createWebchatIntegration, signUp } from '../support/api.js';
import { startTestServer, type TestServer } from '../support/testServer.js';
import { connectWebchat, type WebchatClient } from '../support/webchatClient.js';
import { reportWidgetFailure, startWidgetStage, type WidgetStage } from '../support/widgetPage.js';

/**
 * The widget keeps a visitor token per identity the page vouches for (a signed user, or anonymous), in headless
 * Chromium against the real service: tabs of one browser signed as different people, or signed and not, never
 * take or replace each other's conversation.
 */

let server: TestServer;
let base: string;
let stage: WidgetStage;
let secret: string;
let context: BrowserContext;
let page: Page | undefined;
const sockets: WebchatClient[] = [];
/** The visitor token of each tab's latest `ready`, as the service sent it. */
const tokens = new WeakMap<Page, string>();

beforeAll(async () => {
  server = await startTestServer({ REPLY_BURST_WINDOW_MS: '200' });
  base = (await server.listen(0, '127.0.0.1')).replace('localhost', '127.0.0.1');
  stage = await startWidgetStage(base);
  const co = await signUp(server, 'Signed Shop');
  stage.shop.integrationId = await createWebchatIntegration(co, await createAgent(co), [stage.shop.origin]);
  secret = (await co.call('POST', `/api/integrations/${stage.shop.integrationId}/identity-secret`)).json().identitySecret;
  expect((await co.call('PATCH', `/api/integrations/${stage.shop.integrationId}`, { identityVerification: 'optional' })).statusCode).toBe(200);
});

afterAll(async () => {
  for (const s of sockets) await s.close();
  await stage?.close();
  await server?.close();
});

const userHash = (userId: string) => createHmac('sha256', secret).update(userId).digest('hex');
const signedAs = (userId: string) => `data-user-id="${userId}" data-user-hash="${userHash(userId)}"`;

/** A new browser (its own storage), whose tabs share it like a real one's. */
async function newBrowser(): Promise<void> {
  context = (await stage.newVisitor()).context;
}

/** A tab of the browser on the shop's page, signed as `userId` or not signed at all; the chat opened and ready. */
async function tab(userId: string | null): Promise<Page> {
  const p = await context.newPage();
  p.on('console', (m) => stage.consoleLines.push(`[${m.type()}] ${m.text()}`));
  p.on('websocket', (ws) =>
    ws.on('framereceived', ({ payload }) => {
      const f = JSON.parse(String(payload)) as { type?: string; visitorToken?: string };
      if (f.type === 'ready' && f.visitorToken) tokens.set(p, f.visitorToken);
    }),
  );
  page = p;
  await load(p, userId);
  return p;
}

/** (Re)loads the shop's page as the site renders it for `userId` (null: signed out) and waits for the chat. */
async function load(p: Page, userId: string | null): Promise<void> {
  stage.shop.scriptAttributes = userId === null ? '' : signedAs(userId);
  if (p.url() === stage.shop.url) await p.reload();
  else await p.goto(stage.shop.url);
  await p.getByRole('button', { name: 'Open chat' }).click();
  await expect.poll(() => p.evaluate(() => window.MessagingAgentWidget?.state().connected ?? false), { timeout: 10_000 }).toBe(true);
}

const conversationOf = (p: Page) => p.evaluate(() => String(window.MessagingAgentWidget!.state().conversationId));
const shown = (p: Page) => p.locator('mas-webchat .log').textContent();

/** Sends `text` from the tab and waits until the service has stored it. */
async function say(p: Page, text: string): Promise<void> {
  await p.getByRole('textbox', { name: 'Message' }).fill(text);
  await p.getByRole('button', { name: 'Send' }).click();
  await expect.poll(() => p.evaluate(() => window.MessagingAgentWidget!.state().queued), { timeout: 10_000 }).toBe(0);
}

it("given a tab signed as ann and an unsigned tab of the same browser, when ann's conversation is verified and the unsigned tab is cut, then ann's tab reloads on her conversation and history", async () => {
  reportWidgetFailure('widget-identity-tokens', () => page, stage.consoleLines);
  await newBrowser();
  const unsigned = await tab(null);
  await say(unsigned, 'Just browsing');
  const ann = await tab('u-ann');
  await say(ann, 'Where is my order 4411?');
  const annConversation = await conversationOf(ann);

  // A tab of the earlier widget, which shared one token between all tabs, signs ann in on the unsigned tab's
  // conversation: that conversation is verified for her, and the unsigned tab is cut and starts over.
  const before = await conversationOf(unsigned);
  const earlierTab = await connectWebchat(base, stage.shop.integrationId!, { origin: stage.shop.origin });
  sockets.push(earlierTab);
  earlierTab.send({ type: 'hello', visitorToken: tokens.get(unsigned), userId: 'u-ann', userHash: userHash('u-ann') });
  expect(await earlierTab.waitFor((f) => f.type === 'ready' || f.type === 'error')).toMatchObject({ type: 'ready', conversationId: before });
  expect(await earlierTab.message('Signed in now', 'cm-earlier-tab')).toMatchObject({ type: 'ack' });
  await expect.poll(() => conversationOf(unsigned), { timeout: 10_000 }).not.toBe(before);
  await expect.poll(() => unsigned.evaluate(() => window.MessagingAgentWidget!.state().connected), { timeout: 10_000 }).toBe(true);
  expect(await conversationOf(unsigned)).not.toBe(annConversation);
  expect(await shown(unsigned)).not.toContain('4411');

  await load(ann, 'u-ann');
  expect(await conversationOf(ann)).toBe(annConversation);
  await expect.poll(() => shown(ann), { timeout: 10_000 }).toContain('Where is my order 4411?');
});

/** After ann: the page signed out, or signed for another user on the same browser. */
const AFTER_ANN: [string, string | null, string][] = [
  ['she signs out', null, 'A question while signed out'],
  ['bob signs in on the same browser', 'u-bob', 'Bob here'],
];

it.each(AFTER_ANN)(
  'given ann signed in and chatting, when %s, then the page never shows her history; when she signs in again, her conversation comes back without theirs',
  async (_, other, otherText) => {
    reportWidgetFailure('widget-identity-tokens', () => page, stage.consoleLines);
    await newBrowser();
    const p = await tab('u-ann');
    await say(p, 'Please cancel order 5522');
    const annConversation = await conversationOf(p);

    await load(p, other);
    expect(await conversationOf(p)).not.toBe(annConversation);
    expect(await shown(p)).not.toContain('5522');
    await say(p, otherText);

    await load(p, 'u-ann');
    expect(await conversationOf(p)).toBe(annConversation);
    await expect.poll(() => shown(p), { timeout: 10_000 }).toContain('Please cancel order 5522');
    expect(await shown(p)).not.toContain(otherText);
  },
);
