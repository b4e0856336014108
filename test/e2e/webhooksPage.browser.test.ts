import { createHmac } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  browserPrerequisites,
  dashboardPage,
  dismissNotifications,
  journeySteps,
  navLink,
  pageHeading,
  signUpByApi,
  startServerAndBrowser,
  type ServerAndBrowser,
  type SignedUp,
} from '../support/browser.js';
import { uniqueEmail } from '../support/testServer.js';

/**
 * Developers → Webhooks in headless Chromium, against a local receiver that verifies every delivery with the
 * `standardwebhooks` package: create an endpoint and see its secret once, send a test event and see it
 * delivered in the log, rotate (both secrets sign meanwhile), switch it off and on, see the banner of an
 * endpoint the service disabled after its retries ran out and enable it again, resend one delivery, delete;
 * an agent sees the page read-only without a refused request. Needs `npm run build` and /usr/bin/chromium.
 */

interface Received {
  id: string;
  type: string;
  /** Which of the receiver's secrets verified it, by index. */
  verifiedWith: number[];
  answered: number;
}

/** The company's own system: verifies with the secrets it is given, answers with `status`. */
async function startReceiver() {
  const received: Received[] = [];
  const state = { secrets: [] as string[], status: 200 };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = { 'webhook-id': String(req.headers['webhook-id']), 'webhook-timestamp': String(req.headers['webhook-timestamp']), 'webhook-signature': String(req.headers['webhook-signature']) };
      const verifiedWith = state.secrets.flatMap((secret, i) => {
        try {
          new Webhook(secret).verify(body, headers);
          return [i];
        } catch {
          return [];
        }
      });
      const answered = state.status;
      received.push({ id: headers['webhook-id'], type: (JSON.parse(body) as { type: string }).type, verifiedWith, answered });
      res.writeHead(answered, { 'content-type': 'text/plain' }).end(answered < 300 ? 'ok, thanks' : `nope ${answered}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received,
    state,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const UI = { timeout: 15_000 };
// docs/dashboard.md's screenshot is refreshed with UPDATE_SCREENSHOTS=1; other runs keep theirs under test-results/.
const SCREENSHOTS = process.env.UPDATE_SCREENSHOTS === '1' ? join(process.cwd(), 'docs', 'screenshots') : join(process.cwd(), 'test-results', 'screenshots');
const INBOUND_SECRET = 'whsec_inbound_0123456789abcdef';

if (browserPrerequisites()) {
  let stage: ServerAndBrowser;
  let base: string;
  let owner: SignedUp;
  let page: Page;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const pageErrors: string[] = [];
  const secrets: string[] = [];
  let endpointId = '';

  beforeAll(async () => {
    // Retries 100 ms apart, two of them: an endpoint that keeps failing is disabled within a second.
    stage = await startServerAndBrowser({ ALLOW_PRIVATE_PLATFORM_URLS: 'true', WEBHOOK_RETRY_SCHEDULE_MS: '100,100', WEBHOOK_POLL_MS: '50' });
    base = stage.base;
    receiver = await startReceiver();
    owner = await signUpByApi(base, { tag: 'hooks-page', companyName: 'Hooks page' });
    page = await dashboardPage(stage.browser, { session: owner.session, viewport: { width: 1280, height: 900 } }, pageErrors);
  }, 60_000);
  afterAll(async () => {
    await receiver?.close();
    await stage?.close();
  });

  const cards = () => page.getByTestId('webhook-endpoint-card');
  const rows = () => page.getByTestId('webhook-delivery-row');
  // A hash the page is on already is no navigation: reload then, so the list is fetched again.
  const open = async (path: string) => {
    if (page.url() === `${base}/#${path}`) await page.reload();
    else await page.goto(`${base}/#${path}`);
  };
  const openList = async () => {
    await open('/developers/webhooks');
    await pageHeading(page, 'Webhooks').waitFor(UI);
  };
  const openLog = async () => {
    await open(`/developers/webhooks/${endpointId}`);
    await pageHeading(page, 'Delivery log').waitFor(UI);
  };

  describe('Developers → Webhooks', () => {
    journeySteps('webhooks-page', () => page);

    it('is in the navigation, empty at first', async () => {
      await page.goto(`${base}/#/conversations`);
      await navLink(page, 'Developers').click();
      await pageHeading(page, 'Webhooks').waitFor(UI);
      await page.getByText('No endpoints yet').waitFor(UI);
    });

    it('creates an endpoint against the local receiver and shows its signing secret once', async () => {
      await page.getByRole('button', { name: 'New endpoint' }).click();
      const dialog = page.getByRole('dialog', { name: 'New endpoint' });
      await dialog.getByLabel('URL').fill(receiver.url);
      await dialog.getByLabel('Description').fill('CRM sync');
      await dialog.getByRole('checkbox', { name: /message\.received/ }).check();
      await dialog.getByRole('button', { name: 'Create endpoint' }).click();

      const shown = page.getByTestId('webhook-secret-value');
      await shown.waitFor(UI);
      const secret = (await shown.textContent())!.trim();
      expect(secret).toMatch(/^whsec_/);
      secrets.push(secret);
      receiver.state.secrets = [secret];
      await page.getByRole('button', { name: 'Done' }).click();

      await expect.poll(() => cards().count(), UI).toBe(1);
      const card = cards().first();
      endpointId = (await card.getAttribute('data-endpoint-id'))!;
      expect(await card.textContent()).toContain(receiver.url);
      expect(await card.getByTestId('webhook-endpoint-events').textContent()).toBe('message.received');
      expect(await card.getByTestId('webhook-endpoint-status').textContent()).toBe('Active');
      // Once: neither the page nor the API shows it again.
      expect(await page.content()).not.toContain(secret.slice(6));
      const listed = await owner.api('GET', '/api/webhook-endpoints');
      expect(listed.json.endpoints).toEqual([expect.objectContaining({ id: endpointId, url: receiver.url, description: 'CRM sync', active: true })]);
      expect(JSON.stringify(listed.json)).not.toContain(secret.slice(6));
    });

    it('sends a test event: the receiver verifies it, and the log shows it delivered', async () => {
      await cards().first().getByRole('link', { name: 'Delivery log' }).click();
      await pageHeading(page, 'Delivery log').waitFor(UI);
      await page.getByText('No deliveries yet').waitFor(UI);
      await page.getByRole('button', { name: 'Send test event' }).click();

      await expect.poll(() => receiver.received.filter((r) => r.type === 'webhook.test').length, UI).toBe(1);
      expect(receiver.received[0]!.verifiedWith).toEqual([0]);
      await expect.poll(() => rows().count(), UI).toBe(1);
      const row = rows().first();
      expect(await row.getAttribute('data-event-type')).toBe('webhook.test');
      expect(await row.getAttribute('data-status')).toBe('delivered');
      expect(await row.textContent()).toContain('200');
      expect(await row.getByTestId('webhook-delivery-response').textContent()).toBe('ok, thanks');
      // The server's log has it too, after a reload.
      await page.reload();
      await expect.poll(() => rows().count(), UI).toBe(1);
      expect(await rows().first().getAttribute('data-event-id')).toBe(receiver.received[0]!.id);
    });

    it('rotates the secret: the new one is shown once, and both sign during the grace period', async () => {
      await dismissNotifications(page);
      await openList();
      await cards().first().getByRole('button', { name: 'Rotate secret' }).click();
      await page.getByRole('dialog', { name: 'Rotate the signing secret?' }).getByRole('button', { name: 'Rotate secret' }).click();
      const shown = page.getByTestId('webhook-secret-value');
      await shown.waitFor(UI);
      const rotated = (await shown.textContent())!.trim();
      expect(rotated).toMatch(/^whsec_/);
      expect(rotated).not.toBe(secrets[0]);
      expect(await page.getByTestId('webhook-rotation-grace').textContent()).toContain('both the new and the previous secret sign');
      secrets.push(rotated);
      await page.getByRole('button', { name: 'Done' }).click();

      receiver.state.secrets = [secrets[0]!, rotated];
      await openLog();
      await page.getByRole('button', { name: 'Send test event' }).click();
      await expect.poll(() => receiver.received.filter((r) => r.type === 'webhook.test').length, UI).toBe(2);
      expect(receiver.received.at(-1)!.verifiedWith).toEqual([0, 1]);
      await expect.poll(() => rows().count(), UI).toBe(2);
    });

    it('switches the endpoint off and on by hand', async () => {
      await dismissNotifications(page);
      await openList();
      const card = cards().first();
      // The switch's label draws over its (transparent) checkbox: a click lands on the label, as a user's does.
      await card.locator('.switch-label').click();
      await expect.poll(() => card.getByTestId('webhook-endpoint-status').textContent(), UI).toBe('Inactive');
      expect((await owner.api('GET', `/api/webhook-endpoints/${endpointId}`)).json.endpoint.active).toBe(false);
      await card.locator('.switch-label').click();
      await expect.poll(() => card.getByTestId('webhook-endpoint-status').textContent(), UI).toBe('Active');
      expect((await owner.api('GET', `/api/webhook-endpoints/${endpointId}`)).json.endpoint.active).toBe(true);
    });

    it('sets the balance under which credits.low is sent', async () => {
      await dismissNotifications(page);
      const field = page.getByTestId('credits-low-threshold');
      await expect.poll(() => field.inputValue(), UI).toBe('1');
      await field.fill('2.5');
      await page.getByRole('button', { name: 'Save threshold' }).click();
      await expect.poll(async () => (await owner.api('GET', '/api/webhook-settings')).json.settings.creditsLowThresholdMicros, UI).toBe(2_500_000);
    });

    it('shows a banner when the service disabled the endpoint after its retries; Enable resumes delivery', async () => {
      receiver.state.status = 500;
      const integration = await owner.api('POST', '/api/integrations', { name: 'Shop', connectorType: 'msgplatform', webhookSecret: INBOUND_SECRET });
      expect(integration.status).toBe(201);
      const body = JSON.stringify({ text: 'Where is my parcel?', client_id: 'hooks-1', channel_id: 1, transport: 'telegram' });
      const inbound = await fetch(`${base}/api/webhook/msgplatform/${integration.json.integration.id}`, {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json', 'x-webhook-signature': `sha256=${createHmac('sha256', INBOUND_SECRET).update(body).digest('hex')}` },
      });
      expect(inbound.status).toBe(200);
      // The first attempt and two retries, all refused: then the endpoint is disabled.
      await expect.poll(async () => (await owner.api('GET', `/api/webhook-endpoints/${endpointId}`)).json.endpoint.disabled, UI).not.toBeNull();
      expect(receiver.received.filter((r) => r.type === 'message.received').map((r) => r.answered)).toEqual([500, 500, 500]);

      await openList();
      const banner = page.getByTestId('webhook-disabled-banner');
      await banner.waitFor(UI);
      expect(await banner.textContent()).toContain(receiver.url);
      expect(await cards().first().getByTestId('webhook-endpoint-status').textContent()).toBe('Disabled');

      receiver.state.status = 200;
      await banner.getByRole('button', { name: 'Enable' }).click();
      await expect.poll(() => banner.count(), UI).toBe(0);
      expect(await cards().first().getByTestId('webhook-endpoint-status').textContent()).toBe('Active');
      await expect.poll(() => receiver.received.filter((r) => r.type === 'message.received' && r.answered === 200).length, UI).toBe(1);
    });

    it('resends one delivery with the same webhook-id', async () => {
      await dismissNotifications(page);
      await openLog();
      const row = page.locator('[data-testid="webhook-delivery-row"][data-event-type="message.received"]');
      await expect.poll(() => row.getAttribute('data-status'), UI).toBe('delivered');
      const before = receiver.received.filter((r) => r.type === 'message.received');
      await row.getByRole('button', { name: 'Resend' }).click();
      await expect.poll(() => receiver.received.filter((r) => r.type === 'message.received').length, UI).toBe(before.length + 1);
      expect(receiver.received.at(-1)!.id).toBe(before[0]!.id);
      expect(receiver.received.at(-1)!.verifiedWith).toEqual([0, 1]);
      await expect.poll(async () => Number(await row.getAttribute('data-attempts')), UI).toBe(5);
    });

    it('replays from a date and time: the events since then are delivered again, with their ids', async () => {
      await dismissNotifications(page);
      const before = receiver.received.filter((r) => r.type === 'message.received');
      // The field starts an hour ago: the message came in since.
      expect(await page.getByTestId('webhook-replay-from').inputValue()).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/);
      await page.getByRole('button', { name: 'Replay', exact: true }).click();
      await expect.poll(() => receiver.received.filter((r) => r.type === 'message.received').length, UI).toBe(before.length + 1);
      expect(receiver.received.at(-1)).toMatchObject({ id: before[0]!.id, answered: 200 });
      await dismissNotifications(page);
      await page.getByRole('button', { name: 'Refresh' }).click();
      await expect.poll(() => rows().count(), UI).toBe(3);
      mkdirSync(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: join(SCREENSHOTS, 'webhooks.png'), animations: 'disabled', fullPage: true });
    });

    it('deletes the endpoint after a confirmation', async () => {
      await dismissNotifications(page);
      await openList();
      await cards().first().getByRole('button', { name: 'Delete' }).click();
      await page.getByRole('dialog', { name: 'Delete this endpoint?' }).getByRole('button', { name: 'Delete' }).click();
      await expect.poll(() => cards().count(), UI).toBe(0);
      expect((await owner.api('GET', `/api/webhook-endpoints/${endpointId}`)).status).toBe(404);
      expect(pageErrors).toEqual([]);
    });
  });

  describe('an agent', () => {
    it('sees the endpoints and their log read-only, and the page makes no request the API refuses', async () => {
      const created = await owner.api('POST', '/api/webhook-endpoints', { url: receiver.url, eventTypes: ['*'], description: 'Warehouse' });
      expect(created.status).toBe(201);
      const invited = await owner.api('POST', '/api/team/invitations', { email: uniqueEmail('hooks-agent'), role: 'agent' });
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
      await navLink(agent, 'Developers').click();
      await pageHeading(agent, 'Webhooks').waitFor(UI);
      await agent.getByTestId('webhooks-read-only').waitFor(UI);
      const card = agent.getByTestId('webhook-endpoint-card').filter({ hasText: 'Warehouse' });
      await card.waitFor(UI);
      expect(await agent.getByRole('button', { name: 'New endpoint' }).count()).toBe(0);
      expect(await agent.getByRole('button', { name: 'Rotate secret' }).count()).toBe(0);
      expect(await agent.getByRole('switch', { name: 'Active' }).count()).toBe(0);
      await card.getByRole('link', { name: 'Delivery log' }).click();
      await pageHeading(agent, 'Delivery log').waitFor(UI);
      expect(await agent.getByRole('button', { name: 'Send test event' }).count()).toBe(0);
      expect(await agent.getByRole('button', { name: 'Replay' }).count()).toBe(0);
      expect(refused).toEqual([]);
      await agent.context().close();
    });
  });
}
