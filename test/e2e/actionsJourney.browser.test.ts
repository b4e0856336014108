import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserPrerequisites, dashboardPage, dismissNotifications, journeySteps, navLink, pageHeading, signUpByApi, startServerAndBrowser, type ServerAndBrowser, type SignedUp } from '../support/browser.js';
import { startFakeCompanyApi, type FakeCompanyApi } from '../support/fakeCompanyApi.js';
import { startFakeLlm, type ChatCompletionBody, type FakeLlm } from '../support/fakeLlm.js';

/**
 * The whole life of an action, in headless Chromium, against a local fake of the company's own API and the scripted
 * fake OpenAI server: an owner defines an order lookup and tests it for real; defines a refund that a teammate
 * approves; the playground (mocked) answers a question through the lookup without reaching the API; a customer's
 * refund request on a real conversation waits in the dashboard, is approved there, and the refund is made once and
 * told to the customer; the action log lists it. The pages' details have their own files (actions, playground,
 * actionApprovals, actionLog); this one walks them in order. Needs `npm run build` and /usr/bin/chromium.
 */

const UI = { timeout: 15_000 };
const STEP = 60_000;

type Body = ChatCompletionBody & { tools?: { function: { name: string } }[] };

/** The model: a question about an order calls the lookup, a refund request the refund; a tool result is answered with. */
function scriptedModel(body: Body) {
  const last = (body.messages ?? []).at(-1) as { role: string; content: unknown } | undefined;
  if (last?.role === 'tool') return `From our systems: ${String(last.content)}`;
  const offered = (name: string) => (body.tools ?? []).some((t) => t.function.name === name);
  const text = String(last?.content ?? '');
  if (/refund/i.test(text) && offered('refund_order')) return { content: null, toolCalls: [{ name: 'refund_order', arguments: '{"order_id":"4411"}' }] };
  if (/where is/i.test(text) && offered('lookup_order')) return { content: null, toolCalls: [{ name: 'lookup_order', arguments: '{"order_id":"4411"}' }] };
  return 'How can I help?';
}

if (browserPrerequisites()) {
  let stage: ServerAndBrowser;
  let base: string;
  let owner: SignedUp;
  let page: Page;
  let shop: FakeCompanyApi;
  let llm: FakeLlm;
  const pageErrors: string[] = [];
  const actionIds: Record<string, string> = {};
  let conversationId = '';

  beforeAll(async () => {
    stage = await startServerAndBrowser({ ALLOW_PRIVATE_PLATFORM_URLS: 'true', REPLY_BURST_WINDOW_MS: '0', LLM_MAX_RETRIES: '0' });
    base = stage.base;
    shop = await startFakeCompanyApi();
    shop.respond = (r) => ({ body: r.method === 'POST' ? { status: 'refunded', internal: 'ledger 9' } : { status: 'shipped', eta: '2025-01-03', internal: { warehouse: 'B7' } } });
    llm = await startFakeLlm({ reply: scriptedModel });
    owner = await signUpByApi(base, { tag: 'actions-journey', companyName: 'Journey Outfitters' });
    expect((await owner.api('PUT', '/api/llm-config', { provider: 'openai', baseUrl: llm.url, apiKey: 'sk-journey', model: 'gpt-4o-mini' })).status).toBe(200);
    page = await dashboardPage(stage.browser, { session: owner.session, viewport: { width: 1280, height: 900 } }, pageErrors);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([shop?.close(), llm?.close()]);
    await stage?.close();
  });

  /** The action form's common part: a name, what the model reads, one order number, where it goes, what a mock answers. */
  async function fillAction(name: string, description: string, url: string, sample: string) {
    await page.goto(`${base}/#/conversations`);
    await navLink(page, 'Actions').click();
    await pageHeading(page, 'Actions').waitFor(UI);
    await page.getByTestId('action-new').click();
    await pageHeading(page, 'New action').waitFor(UI);
    await page.getByTestId('action-name').fill(name);
    await page.getByTestId('action-description').fill(description);
    await page.getByTestId('param-add').click();
    await page.getByTestId('param-name-0').fill('order_id');
    await page.getByTestId('param-description-0').fill('The order number');
    await page.getByTestId('action-url').fill(url);
    await page.getByTestId('action-response-fields').fill('status, eta');
    await page.getByTestId('action-sample').fill(sample);
  }

  async function saved(name: string) {
    await page.getByTestId('action-save').click();
    await pageHeading(page, name).waitFor(UI);
    const { json } = await owner.api('GET', '/api/actions');
    actionIds[name] = (json.actions as { id: string; name: string }[]).find((a) => a.name === name)!.id;
  }

  describe('an action from definition to an approved live call', () => {
    journeySteps('actions-journey', () => page);

    it('an owner defines an order lookup against the company API and tests it: the real endpoint answers, raw and mapped', { timeout: STEP }, async () => {
      await fillAction('lookup_order', 'Finds an order by its number and tells its status.', `${shop.url}/orders/{order_id}`, '{"status": "sample status"}');
      await saved('lookup_order');

      await dismissNotifications(page);
      await page.getByTestId('action-test-parameters').fill('{"order_id": "4411"}');
      await page.getByTestId('action-test').click();
      await page.getByTestId('action-test-result').waitFor(UI);
      expect(await page.getByTestId('action-test-result').textContent()).toContain('HTTP 200');
      expect(JSON.parse((await page.getByTestId('action-test-mapped').textContent())!)).toEqual({ status: 'shipped', eta: '2025-01-03' });
      expect(shop.requests.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /orders/4411']);
    });

    it('an owner defines a refund that a teammate approves', { timeout: STEP }, async () => {
      await fillAction('refund_order', 'Refunds an order.', `${shop.url}/orders/{order_id}/refund`, '{"status": "refunded"}');
      await page.getByTestId('action-method').selectOption('POST');
      await page.getByTestId('action-mode').selectOption('approve');
      await page.getByTestId('action-approve-settings').waitFor(UI);
      await saved('refund_order');
      expect((await owner.api('GET', `/api/actions/${actionIds.refund_order}`)).json.action).toMatchObject({ mode: 'approve', method: 'POST' });
    });

    it('the playground, mocked, answers a question about an order through the lookup without calling the API', { timeout: STEP }, async () => {
      const agent = (await owner.api('POST', '/api/agents', { name: 'Shop helper', handoffMessage: 'A colleague will help.' })).json.agent as { id: string };
      expect((await owner.api('PATCH', `/api/agents/${agent.id}`, { actionIds: [actionIds.lookup_order, actionIds.refund_order] })).status).toBe(200);
      const integration = await owner.api('POST', '/api/integrations', { name: 'Sandbox', connectorType: 'msgplatform', webhookSecret: 'whsec_journey_0123456789', agentId: agent.id });
      expect(integration.status).toBe(201);

      await page.goto(`${base}/#/agents`);
      await page.getByTestId('agent-try-it').click();
      await page.getByRole('heading', { level: 1, name: 'Playground: Shop helper' }).waitFor(UI);
      expect(await page.getByTestId('playground-actions').inputValue()).toBe('mocked');
      await page.getByTestId('playground-input').fill('Where is order 4411?');
      await page.getByTestId('playground-send').click();
      await expect.poll(() => page.getByTestId('playground-answer').locator('.message-text').textContent(), UI).toBe('From our systems: {"status":"sample status"}');
      expect(await page.getByTestId('playground-actions-mode').textContent()).toBe('Actions: mocked');
      expect(shop.requests).toHaveLength(1); // the test call only
    });

    it("a customer's refund request waits for approval; a teammate approves it in the dashboard; the refund is made once and the customer told", { timeout: STEP }, async () => {
      const integrationId = (await owner.api('GET', '/api/integrations')).json.integrations[0].id as number;
      const sent = await owner.api('POST', `/api/integrations/${integrationId}/test-message`, { text: 'Please refund order 4411' });
      expect(sent.status).toBe(202);
      conversationId = sent.json.conversationId as string;

      await page.goto(`${base}/#/conversations`);
      const row = page.getByTestId(`conversation-row-${conversationId}`);
      await expect.poll(() => row.getByTestId('needs-approval').textContent(), UI).toBe('Needs approval');
      await row.click();
      const card = page.getByTestId('pending-action');
      await expect.poll(() => card.isVisible(), UI).toBe(true);
      expect(await page.getByTestId('pending-action-name').textContent()).toBe('refund_order');
      expect(await page.getByTestId('pending-action-arguments').textContent()).toContain('order_id4411');
      expect(shop.requests).toHaveLength(1);

      await page.getByTestId('approve-action').click();
      await expect.poll(() => card.count(), UI).toBe(0);
      const agentSaid = page.locator('[data-testid="message"][data-author="agent"] .message-text');
      await expect.poll(() => agentSaid.allTextContents(), UI).toContain('From our systems: {"status":"refunded"}');
      const refunds = shop.requests.filter((r) => r.method === 'POST');
      expect(refunds.map((r) => r.url)).toEqual(['/orders/4411/refund']);
      const calls = (await owner.api('GET', `/api/action-calls?conversationId=${conversationId}`)).json.calls as { callId: string; status: string; decidedBy: string }[];
      expect(refunds[0]!.headers['idempotency-key']).toBe(calls[0]!.callId);
      expect(calls.map((c) => c.status)).toEqual(['succeeded']);
    });

    it('the action log lists the approved refund, with who approved it', { timeout: STEP }, async () => {
      await navLink(page, 'Action log').click();
      await pageHeading(page, 'Action log').waitFor(UI);
      const log = page.getByTestId('action-log').getByTestId('action-call-card');
      await expect.poll(() => log.count(), UI).toBe(1);
      expect(await log.first().getAttribute('aria-label')).toBe('Action refund_order: Succeeded');
      expect(await log.first().getByTestId('action-call-decided-by').count()).toBe(1);
      expect(pageErrors).toEqual([]);
    });
  });
}
