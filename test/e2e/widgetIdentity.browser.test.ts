import { createHmac } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadState } from '../../src/commands/handleCommand.js';
import { conversationDecider, conversationStream } from '../../src/domain/conversations/decider.js';
import { customerIdentityOf } from '../../src/domain/conversations/customerIdentity.js';
import { createAgent, createWebchatIntegration, signUp } from '../support/api.js';
import { startTestServer, type TestServer } from '../support/testServer.js';
import { reportWidgetFailure, startWidgetStage, type WidgetStage } from '../support/widgetPage.js';

/**
 * The widget passes the visitor the shop's server signed (data-user-id, data-user-email, data-user-hash): in
 * headless Chromium against the real service, the signed visitor's conversation holds their verified identity,
 * and on an integration that requires it an unsigned page gets no chat.
 */

let server: TestServer;
let stage: WidgetStage;
let page: Page | undefined;
let secret: string;

beforeAll(async () => {
  server = await startTestServer({ REPLY_BURST_WINDOW_MS: '200' });
  const base = (await server.listen(0, '127.0.0.1')).replace('localhost', '127.0.0.1');
  stage = await startWidgetStage(base);
  const co = await signUp(server, 'Signed Shop');
  stage.shop.integrationId = await createWebchatIntegration(co, await createAgent(co), [stage.shop.origin]);
  secret = (await co.call('POST', `/api/integrations/${stage.shop.integrationId}/identity-secret`)).json().identitySecret;
  expect((await co.call('PATCH', `/api/integrations/${stage.shop.integrationId}`, { identityVerification: 'required' })).statusCode).toBe(200);
});

afterAll(async () => {
  await stage?.close();
  await server?.close();
});

it("a signed-in shopper's chat carries the identity the shop signed; an unsigned page gets no chat", async () => {
  reportWidgetFailure('widget-identity', () => page, stage.consoleLines);
  const hash = createHmac('sha256', secret).update('shopper-42\nann@shop.example').digest('hex');
  stage.shop.scriptAttributes = `data-user-id="shopper-42" data-user-email="ann@shop.example" data-user-hash="${hash}"`;
  page = (await stage.newVisitor()).page;
  await page.goto(stage.shop.url);
  await page.getByRole('button', { name: 'Open chat' }).click();
  await page.getByRole('textbox', { name: 'Message' }).fill('Where is my order?');
  await page.getByRole('button', { name: 'Send' }).click();
  const conversationId = await expect
    .poll(() => page!.evaluate(() => window.MessagingAgentWidget?.state().conversationId ?? null), { timeout: 10_000 })
    .not.toBeNull()
    .then(() => page!.evaluate(() => String(window.MessagingAgentWidget!.state().conversationId)));
  await expect
    .poll(async () => customerIdentityOf((await loadState(server.adapters.eventStore, conversationStream(conversationId), conversationDecider)).state), { timeout: 10_000 })
    .toEqual({ 'webchat.userId': 'shopper-42', 'webchat.email': 'ann@shop.example' });

  stage.shop.scriptAttributes = 'data-user-id="shopper-42"';
  page = (await stage.newVisitor()).page;
  await page.goto(stage.shop.url);
  await page.getByRole('button', { name: 'Open chat' }).click();
  // The page did not sign its visitor: refused, and the widget does not keep reconnecting.
  await expect.poll(() => page!.locator('mas-webchat .status').textContent(), { timeout: 10_000 }).toBe('Chat is not available on this site.');
  expect(await page.evaluate(() => window.MessagingAgentWidget?.state().connected)).toBe(false);
});
