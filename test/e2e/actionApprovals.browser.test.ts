import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { browserPrerequisites, dashboardPage, signUpByApi, startServerAndBrowser, withFailureScreenshot, type ServerAndBrowser } from '../support/browser.js';

/**
 * Approving an action call from the dashboard, in real Chromium: a conversation whose agent asked to cancel an
 * order waits for a teammate; the inbox row says it needs approval, the conversation shows what will be called
 * with which arguments, and Approve records the decision. Needs the built dashboard (`npm run build`) and
 * /usr/bin/chromium.
 */

const UI_TIMEOUT = 15_000;

let stage: ServerAndBrowser;
let page: Page;
let companyId: string;
let integrationId: number;
const pageErrors: string[] = [];

if (browserPrerequisites()) {
  beforeAll(async () => {
    stage = await startServerAndBrowser();
    const owner = await signUpByApi(stage.base, { tag: 'approvals', companyName: 'Approval Outfitters' });
    companyId = (await owner.api('GET', '/api/auth/me')).json.company.companyId;
    integrationId = (await owner.api('POST', '/api/integrations', { name: 'Telegram line', connectorType: 'msgplatform' })).json.integration.id;
    page = await dashboardPage(stage.browser, { session: owner.session, timeoutMs: UI_TIMEOUT }, pageErrors);
  }, 60_000);

  afterAll(async () => {
    await stage?.close();
  });

  /** Given a conversation whose agent asked to call cancel_order and waits for a teammate (as the reply worker records it). */
  async function waitingForApproval() {
    const [conversationId, callId] = [randomUUID(), randomUUID()];
    const now = new Date().toISOString();
    const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
    const events = [
      { type: 'ConversationStarted', data: { conversationId, companyId, integrationId, connectorType: 'msgplatform', customer: { clientId: 'customer-7', channelId: null, transport: 'telegram', name: 'Nora' }, stageId: null, at: now } },
      { type: 'AiSessionOpened', data: { sessionId: randomUUID(), at: now } },
      { type: 'ActionCallRequested', data: { callId, replyId: randomUUID(), actionId: randomUUID(), actionName: 'cancel_order', mode: 'approve', arguments: { order_id: '4411', customer: '[platform.clientId]' }, at: now } },
      { type: 'ActionApprovalRequested', data: { callId, messageId: randomUUID(), holdingReply: 'A teammate will approve this shortly.', approverRoles: null, expiresAt, at: now } },
    ];
    const appended = await stage.server.adapters.eventStore.append(`conversation-${conversationId}`, events.map((e) => ({ id: randomUUID(), ...e, metadata: { companyId } })), 'no_stream');
    await stage.server.projections.waitForPosition(appended.position);
    return { conversationId, callId };
  }

  it('a teammate sees the call waiting for approval, with what it will call, and approves it: the decision is recorded', async () => {
    await withFailureScreenshot(page, 'action-approval', async () => {
      const { conversationId, callId } = await waitingForApproval();
      await page.goto(`${stage.base}/#/conversations`);
      const row = page.getByTestId(`conversation-row-${conversationId}`);
      await expect.poll(() => row.getByTestId('needs-approval').textContent(), { timeout: UI_TIMEOUT }).toBe('Needs approval');

      await row.click();
      const card = page.getByTestId('pending-action');
      await expect.poll(() => card.isVisible(), { timeout: UI_TIMEOUT }).toBe(true);
      expect(await card.getByRole('heading').textContent()).toContain('Waiting for approval');
      expect(await page.getByTestId('pending-action-name').textContent()).toBe('cancel_order');
      const args = await page.getByTestId('pending-action-arguments').textContent();
      expect(args).toContain('order_id4411');
      expect(args).toContain('customer[platform.clientId]');

      await page.getByTestId('approve-action').click();
      await expect.poll(() => card.count(), { timeout: UI_TIMEOUT }).toBe(0);
      const approved = (await stage.server.adapters.eventStore.readStream(`conversation-${conversationId}`)).filter((e) => e.type === 'ActionCallApproved');
      expect(approved.map((e) => (e.data as { callId: string }).callId)).toEqual([callId]);
      await expect.poll(() => row.getByTestId('needs-approval').count(), { timeout: UI_TIMEOUT }).toBe(0);
      expect(pageErrors).toEqual([]);
    });
  });

  it('refusing asks for a reason and records it', async () => {
    await withFailureScreenshot(page, 'action-refusal', async () => {
      const { conversationId } = await waitingForApproval();
      await page.goto(`${stage.base}/#/conversations/${conversationId}`);
      await page.getByTestId('refuse-action').click();
      await page.getByTestId('refuse-reason').fill('The order has shipped already');
      await page.getByTestId('confirm-refuse').click();
      await expect.poll(() => page.getByTestId('pending-action').count(), { timeout: UI_TIMEOUT }).toBe(0);
      const refused = (await stage.server.adapters.eventStore.readStream(`conversation-${conversationId}`)).find((e) => e.type === 'ActionCallRefused');
      expect(refused?.data).toMatchObject({ reason: 'The order has shipped already' });
      expect(pageErrors).toEqual([]);
    });
  });
}
