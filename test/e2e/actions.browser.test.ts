import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueEmail } from '../support/testServer.js';
import { browserPrerequisites, dashboardPage, dismissNotifications, journeySteps, navLink, pageHeading, signUpByApi, startServerAndBrowser, type ServerAndBrowser, type SignedUp } from '../support/browser.js';

/**
 * Actions in headless Chromium, against a local fake of the company's own API: define an order lookup (a parameter
 * the model fills, one the service fills from the customer's identity, a secret header), test it and see the raw
 * and the mapped answer without the secret, then pick it on an agent, next to the note that the built-in provider
 * never calls actions. Needs `npm run build` and /usr/bin/chromium.
 */

const UI = { timeout: 15_000 };
const SHOP_KEY = 'shop-key-browser-7c1d2e3f4a5b6c7d8e9f';

async function startFakeShop() {
  const requests: { url: string; headers: IncomingHttpHeaders }[] = [];
  const server = createServer((req, res) => {
    requests.push({ url: req.url ?? '', headers: req.headers });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ status: 'shipped', eta: '2025-01-03', internal: { warehouse: 'B7' } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

if (browserPrerequisites()) {
  let stage: ServerAndBrowser;
  let base: string;
  let owner: SignedUp;
  let page: Page;
  let shop: Awaited<ReturnType<typeof startFakeShop>>;
  const pageErrors: string[] = [];
  let actionId = '';

  beforeAll(async () => {
    stage = await startServerAndBrowser({ ALLOW_PRIVATE_PLATFORM_URLS: 'true' });
    base = stage.base;
    shop = await startFakeShop();
    owner = await signUpByApi(base, { tag: 'actions-page', companyName: 'Actions page' });
    page = await dashboardPage(stage.browser, { session: owner.session, viewport: { width: 1280, height: 900 } }, pageErrors);
  }, 60_000);
  afterAll(async () => {
    await shop?.close();
    await stage?.close();
  });

  describe('Actions', () => {
    journeySteps('actions-page', () => page);

    it('given no actions, the Actions page is in the navigation and says so', async () => {
      await page.goto(`${base}/#/conversations`);
      await navLink(page, 'Actions').click();
      await pageHeading(page, 'Actions').waitFor(UI);
      await page.getByText('No actions yet').waitFor(UI);
      expect(await page.textContent('body')).toContain('The built-in provider never calls actions');
    });

    it('when an owner defines an order lookup, then it is created with its identity binding and its header by name only', async () => {
      await page.getByTestId('action-new').click();
      await pageHeading(page, 'New action').waitFor(UI);
      await page.getByTestId('action-name').fill('lookup_order');
      await page.getByTestId('action-description').fill('Finds an order by its number and tells its status.');
      await page.getByTestId('param-add').click();
      await page.getByTestId('param-name-0').fill('order_id');
      await page.getByTestId('param-description-0').fill('The order number');
      await page.getByTestId('param-add').click();
      await page.getByTestId('param-name-1').fill('customer');
      await page.getByTestId('param-identity-1').selectOption('platform.clientId');
      await page.getByTestId('action-url').fill(`${shop.url}/orders/{order_id}`);
      await page.getByTestId('header-add').click();
      await page.getByTestId('header-name-0').fill('X-Shop-Key');
      await page.getByTestId('header-value-0').fill(SHOP_KEY);
      await page.getByTestId('action-response-fields').fill('status, eta');
      await page.getByTestId('action-sample').fill('{"status": "shipped", "eta": "2025-01-03"}');
      await page.getByTestId('action-save').click();

      await pageHeading(page, 'lookup_order').waitFor(UI);
      const { json } = await owner.api('GET', '/api/actions');
      expect(json.actions).toHaveLength(1);
      actionId = json.actions[0].id;
      expect(json.actions[0]).toMatchObject({
        name: 'lookup_order',
        method: 'GET',
        mode: 'auto',
        identity: { customer: 'platform.clientId' },
        parameters: { properties: { order_id: { type: 'string', description: 'The order number' }, customer: { type: 'string' } }, required: ['order_id', 'customer'] },
        headers: [{ name: 'X-Shop-Key', valueSet: true }],
        responseFields: ['status', 'eta'],
      });
      // Write-only: the form shows the header's name, never its value.
      expect(await page.getByTestId('header-value-0').inputValue()).toBe('');
      expect(await page.content()).not.toContain(SHOP_KEY);
    });

    it('when tested with an order number and a customer id, then the real endpoint is called and the raw and mapped answers are shown, without the key', async () => {
      await dismissNotifications(page);
      await page.getByTestId('action-test-parameters').fill('{"order_id": "4411"}');
      await page.getByTestId('action-test-identity-platform.clientId').fill('client-77');
      await page.getByTestId('action-test').click();
      await page.getByTestId('action-test-result').waitFor(UI);
      expect(await page.getByTestId('action-test-result').textContent()).toContain('HTTP 200');
      expect(JSON.parse((await page.getByTestId('action-test-raw').textContent())!)).toEqual({ status: 'shipped', eta: '2025-01-03', internal: { warehouse: 'B7' } });
      expect(JSON.parse((await page.getByTestId('action-test-mapped').textContent())!)).toEqual({ status: 'shipped', eta: '2025-01-03' });
      expect(shop.requests).toHaveLength(1);
      expect(shop.requests[0]!.url).toBe('/orders/4411?customer=client-77');
      expect(shop.requests[0]!.headers['x-shop-key']).toBe(SHOP_KEY);
      expect(await page.content()).not.toContain(SHOP_KEY);
    });

    it('when an owner picks it on an agent, then the agent lists it, and the form says the built-in provider never calls it', async () => {
      const created = await owner.api('POST', '/api/agents', { name: 'Shop helper', systemPrompt: 'You help shoppers.' });
      expect(created.status).toBe(201);
      const agentId = created.json.agent.id as string;
      await page.goto(`${base}/#/agents/${agentId}`);
      await pageHeading(page, 'Edit agent').waitFor(UI);
      const picker = page.getByTestId('agent-actions');
      await picker.getByRole('switch', { name: 'lookup_order' }).waitFor(UI);
      expect(await page.getByTestId('agent-actions-builtin-note').textContent()).toContain('The built-in provider never calls actions');
      await picker.getByText('lookup_order', { exact: true }).click();
      expect(await picker.getByRole('switch', { name: 'lookup_order' }).isChecked()).toBe(true);
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await pageHeading(page, 'Agents').waitFor(UI);
      expect((await owner.api('GET', `/api/agents/${agentId}`)).json.agent.actionIds).toEqual([actionId]);
      expect(pageErrors).toEqual([]);
    });

    it('given an agent (the role), the page is read-only: no New action, no Save, no Test, and no refused request', async () => {
      const invited = await owner.api('POST', '/api/team/invitations', { email: uniqueEmail('actions-agent'), role: 'agent' });
      const url = invited.json.invitationUrl as string;
      const token = url.slice(url.indexOf('#/accept-invitation/') + '#/accept-invitation/'.length);
      const accepted = await fetch(`${base}/api/auth/accept-invitation`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token, name: 'Agent', password: 'agent password' }) });
      expect(accepted.status).toBe(200);
      const { session } = (await accepted.json()) as { session: unknown };
      const agent = await dashboardPage(stage.browser, { session });
      const refused: string[] = [];
      agent.on('response', (res) => {
        if (res.status() === 403) refused.push(res.url());
      });
      await agent.goto(`${base}/#/conversations`);
      await navLink(agent, 'Actions').click();
      await agent.getByTestId('action-row').waitFor(UI);
      expect(await agent.getByTestId('action-new').count()).toBe(0);
      await agent.getByRole('link', { name: 'Open lookup_order' }).click();
      await pageHeading(agent, 'lookup_order').waitFor(UI);
      expect(await agent.getByTestId('action-name').isDisabled()).toBe(true);
      expect(await agent.getByTestId('action-save').count()).toBe(0);
      expect(await agent.getByTestId('action-test').count()).toBe(0);
      expect(refused).toEqual([]);
      await agent.context().close();
    });
  });
}
