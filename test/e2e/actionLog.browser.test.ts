import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { browserPrerequisites, dashboardPage, journeySteps, navLink, pageHeading, signUpByApi, startServerAndBrowser, type ServerAndBrowser, type SignedUp } from '../support/browser.js';

/**
 * Audit of the agents' actions in headless Chromium: a conversation's action calls as cards (what, when, with
 * what, the result, who approved or refused) in the conversation view, the company-wide Action log with its
 * filters, and the per-action table on Analytics. The calls are recorded on the conversation as the reply loop
 * records them (src/domain/conversations/actionCalls.ts). Needs `npm run build` and /usr/bin/chromium.
 */

const STEP_TIMEOUT = 60_000;
const UI_TIMEOUT = 15_000;

let stage: ServerAndBrowser;
let page: Page;
let owner: SignedUp;
let conversationId: string;
const lookup = randomUUID();
const cancel = randomUUID();
const calls = { status: randomUUID(), cancelled: randomUUID(), refused: randomUUID() };
const pageErrors: string[] = [];

/** The calls of one answer as the reply loop records them: a lookup, an approved cancellation, a refused one. */
async function recordCalls(userId: string) {
  const t = (s: number) => new Date(Date.now() - 60_000 + s * 1000).toISOString();
  const idem = (callId: string) => ({ idempotencyKey: `idem-${callId}`, mocked: false });
  const steps = [
    { type: 'ActionCallRequested', data: { callId: calls.status, replyId: randomUUID(), actionId: lookup, actionName: 'order_status', mode: 'auto', arguments: { order_id: '4411', customer: '[platform.clientId]' }, at: t(1) } },
    { type: 'ActionCallStarted', data: { callId: calls.status, ...idem(calls.status), at: t(1) } },
    { type: 'ActionCallSucceeded', data: { callId: calls.status, status: 200, durationMs: 230, response: '{"status":"shipped","eta":"Friday"}', mocked: false, at: t(2) } },
    { type: 'ActionCallRequested', data: { callId: calls.cancelled, replyId: randomUUID(), actionId: cancel, actionName: 'cancel_order', mode: 'approve', arguments: { order_id: '4411' }, at: t(3) } },
    { type: 'ActionApprovalRequested', data: { callId: calls.cancelled, messageId: randomUUID(), holdingReply: 'A teammate will confirm shortly.', approverRoles: null, expiresAt: t(3600), at: t(3) } },
    { type: 'ActionCallApproved', data: { callId: calls.cancelled, by: userId, at: t(10) } },
    { type: 'ActionCallStarted', data: { callId: calls.cancelled, ...idem(calls.cancelled), at: t(10) } },
    { type: 'ActionCallSucceeded', data: { callId: calls.cancelled, status: 200, durationMs: 640, response: '{"cancelled":true}', mocked: false, at: t(11) } },
    { type: 'ActionCallRequested', data: { callId: calls.refused, replyId: randomUUID(), actionId: cancel, actionName: 'cancel_order', mode: 'approve', arguments: { order_id: '5522' }, at: t(20) } },
    { type: 'ActionApprovalRequested', data: { callId: calls.refused, messageId: randomUUID(), holdingReply: 'A teammate will confirm shortly.', approverRoles: null, expiresAt: t(3600), at: t(20) } },
    { type: 'ActionCallRefused', data: { callId: calls.refused, by: userId, reason: 'Already shipped', at: t(25) } },
  ];
  const { eventStore } = stage.server.adapters;
  const appended = await eventStore.append(`conversation-${conversationId}`, steps.map((s) => ({ id: randomUUID(), ...s })), 'any');
  await stage.server.projections.waitForPosition(appended.position);
}

const card = (callId: string) => page.locator(`[data-testid="action-call-card"][data-call-id="${callId}"]`);

if (browserPrerequisites()) {
  beforeAll(async () => {
    stage = await startServerAndBrowser();
    owner = await signUpByApi(stage.base, { tag: 'actions', companyName: 'Actions Audit Ltd' });
    // A real conversation (a sandbox test message, no agent), then the calls of an answer recorded on it.
    const integration = await owner.api('POST', '/api/integrations', { name: 'Shop', connectorType: 'msgplatform', webhookSecret: 'whsec_actions_browser_0123456789' });
    expect(integration.status).toBe(201);
    expect((await owner.api('POST', `/api/integrations/${integration.json.integration.id}/test-message`, { text: 'Cancel order 4411 please' })).status).toBe(202);
    conversationId = await eventually(async () => {
      const [conversation] = (await owner.api('GET', '/api/conversations')).json.conversations;
      if (!conversation) throw new Error('no conversation yet');
      return conversation.id as string;
    }, 20_000, 100);
    await recordCalls((await owner.api('GET', '/api/auth/me')).json.user.id);
    page = await dashboardPage(stage.browser, { viewport: { width: 1280, height: 900 }, timeoutMs: UI_TIMEOUT, session: owner.session }, pageErrors);
  }, 90_000);

  afterAll(async () => {
    await stage?.close();
  });

  journeySteps('action-log', () => page);

  describe('Action calls in the dashboard', () => {
    it('the conversation shows each call inline as a card: what, with what, the result, who approved or refused', { timeout: STEP_TIMEOUT }, async () => {
      await page.goto(`${stage.base}/#/conversations/${conversationId}`);
      await card(calls.status).waitFor();
      expect(await page.getByTestId('action-call-card').count()).toBe(3);
      const status = card(calls.status);
      expect(await status.getAttribute('data-status')).toBe('succeeded');
      expect(await status.getByTestId('action-call-arguments').textContent()).toBe('order_id=4411, customer=[platform.clientId]');
      expect(await status.getByTestId('action-call-result').textContent()).toContain('HTTP 200');
      expect(await status.getByTestId('action-call-response').textContent()).toContain('"eta":"Friday"');
      expect(await card(calls.cancelled).getByTestId('action-call-decided-by').textContent()).toBe('you');
      const refused = card(calls.refused);
      expect(await refused.getByTestId('action-call-status').textContent()).toBe('Refused');
      expect(await refused.textContent()).toContain('Already shipped');
    });

    it("the event history groups a call's events into its one card", { timeout: STEP_TIMEOUT }, async () => {
      await page.getByRole('tab', { name: 'Event history' }).click();
      await page.getByTestId('event-action-call').first().waitFor();
      expect(await page.getByTestId('event-action-call').count()).toBe(3);
      const steps = card(calls.cancelled).getByTestId('action-call-step');
      expect(await steps.count()).toBe(5);
      expect((await steps.nth(2).textContent())?.toLowerCase()).toContain('you approved the action.');
      // No action-call event is left as a loose sentence of its own.
      expect(await page.locator('[data-testid="event"][data-type^="Action"]').count()).toBe(0);
    });

    it('the Action log lists every call, newest first, and filters by status, action and conversation', { timeout: STEP_TIMEOUT }, async () => {
      await navLink(page, 'Action log').click();
      await pageHeading(page, 'Action log').waitFor();
      const log = page.getByTestId('action-log').getByTestId('action-call-card');
      await log.first().waitFor();
      expect(await log.evaluateAll((cards) => cards.map((c) => c.getAttribute('data-call-id')))).toEqual([calls.refused, calls.cancelled, calls.status]);

      await page.getByTestId('action-log-status').selectOption('refused');
      await expect.poll(() => log.count()).toBe(1);
      expect(await log.first().getAttribute('data-call-id')).toBe(calls.refused);

      await page.getByTestId('action-log-status').selectOption('');
      await page.getByTestId('action-log-action').selectOption({ label: 'order_status' });
      await expect.poll(() => log.count()).toBe(1);
      expect(await log.first().getAttribute('data-call-id')).toBe(calls.status);

      await page.getByTestId('action-log-action').selectOption('');
      await page.getByTestId('action-log-conversation').fill(randomUUID());
      await page.getByText('No call matches these filters').waitFor();
      await page.getByTestId('action-log-conversation').fill(conversationId);
      await expect.poll(() => log.count()).toBe(3);
    });

    it('Analytics has a table per action', { timeout: STEP_TIMEOUT }, async () => {
      await navLink(page, 'Analytics').click();
      await pageHeading(page, 'Analytics').waitFor();
      const rows = page.getByTestId('analytics-by-action').locator('tbody tr');
      await rows.first().waitFor();
      const cells = async (actionId: string) => page.locator(`[data-testid="analytics-by-action"] tr[data-action-id="${actionId}"] td`).allTextContents();
      // Action, calls, succeeded, failed, rejected, approved, refused, expired, declined, playground, p50, p95.
      expect((await cells(cancel)).slice(0, 9)).toEqual(['cancel_order', '2', '1', '0', '0', '1', '1', '0', '0']);
      expect((await cells(lookup)).slice(0, 3)).toEqual(['order_status', '1', '1']);
      expect(pageErrors).toEqual([]);
    });
  });
}
