import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signWebhookBody } from '../../src/http/platformWebhooks/webhookSignature.js';
import { browserPrerequisites, dashboardBearer, dashboardPage, saveFailureScreenshot, signUpInDashboard, startServerAndBrowser, type ServerAndBrowser } from '../support/browser.js';
import type { TestServer } from '../support/testServer.js';

/**
 * Working as a support team, in headless Chromium: the customer's profile next to the conversation with an
 * editable note, a canned reply inserted with "/" in the reply box, and a .md file uploaded to the knowledge
 * base. Needs `npm run build` and /usr/bin/chromium, like dashboard.browser.test.ts.
 */
const TIMEOUT = 90_000;
const SECRET = 'whsec_0123456789abcdef0123';

if (browserPrerequisites()) {
  let server: TestServer;
  let base: string;
  let stage: ServerAndBrowser;
  let page: Page;
  beforeAll(async () => {
    stage = await startServerAndBrowser();
    ({ server, base } = stage);
    page = await dashboardPage(stage.browser, { viewport: { width: 1400, height: 900 }, timeoutMs: 15_000 });
  });
  afterAll(async () => {
    await stage?.close();
  });

  const token = () => dashboardBearer(page);
  const api = async (method: string, url: string, body?: unknown) => {
    const res = await server.app.inject({ method: method as 'GET', url, headers: { authorization: `Bearer ${await token()}` }, ...(body ? { payload: body as object } : {}) });
    return res.json();
  };

  describe('support team: customer profile, canned replies, knowledge-base files', () => {
    it('edits the note of the customer next to the conversation, inserts a canned reply with "/", uploads a .md file', { timeout: TIMEOUT }, async (ctx) => {
      ctx.onTestFailed(async () => {
        await saveFailureScreenshot(page, 'support-team');
      });
      await signUpInDashboard(page, base, { companyName: 'Support Outfitters', email: `support-${Date.now()}@example.com` });

      // A customer writes in through the platform; the team has canned replies (added on their page).
      const { integration } = await api('POST', '/api/integrations', { name: 'Main', connectorType: 'msgplatform', webhookSecret: SECRET });
      const payload = JSON.stringify({ message_id: 'm-1', client_id: 'ada', channel_id: 1, transport: 'telegram', text: 'Where is my parcel?', client: { id: 'ada', name: 'Ada Lovelace', phone: '+47 555 0100' } });
      await server.app.inject({ method: 'POST', url: `/api/webhook/msgplatform/${integration.id}`, payload, headers: { 'content-type': 'application/json', 'x-webhook-signature': signWebhookBody(payload, SECRET) } });
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Canned replies', exact: true }).click();
      // A new company has none yet: the page says so (ListState's empty state), then lists the first one added.
      await page.getByText('No canned replies yet', { exact: false }).waitFor();
      await page.getByLabel('Shortcut').fill('greeting');
      await page.getByLabel('Title', { exact: true }).fill('Greeting');
      await page.getByLabel('Text', { exact: true }).fill('Hi! Thanks for reaching out — let me check that for you.');
      await page.getByRole('button', { name: 'Add reply', exact: true }).click();
      await page.getByTestId('canned-reply-row').filter({ hasText: '/greeting' }).waitFor();
      expect(await page.getByText('No canned replies yet', { exact: false }).count()).toBe(0);
      await api('POST', '/api/canned-replies', { shortcut: 'hours', title: 'Opening hours', text: 'We are open 9–17 on weekdays.' });

      // The conversation shows its customer; the note is edited and saved.
      const { conversations } = await api('GET', '/api/conversations');
      await page.goto(`${base}/#/conversations/${conversations[0].id}`);
      const panel = page.getByTestId('customer-panel');
      await expect.poll(() => panel.getByTestId('customer-name').textContent()).toBe('Ada Lovelace');
      expect(await panel.getByTestId('customer-phone').textContent()).toBe('+47 555 0100');
      await panel.getByTestId('customer-note-input').fill('Prefers phone calls after 16:00.');
      await panel.getByTestId('customer-note-save').click();
      await panel.getByTestId('customer-note-meta').waitFor();
      const customer = await api('GET', `/api/customers/${conversations[0].customerId}`);
      expect(customer.customer.note).toBe('Prefers phone calls after 16:00.');
      await expect.poll(() => panel.getByTestId('customer-conversations').textContent()).toContain('This conversation');

      // "/" in the reply box opens the canned replies; typing filters; Enter inserts.
      const reply = page.getByLabel('Reply as operator');
      await reply.click();
      await reply.pressSequentially('/');
      const list = page.getByTestId('canned-reply-list');
      await expect.poll(() => list.getByTestId('canned-reply-option').count()).toBe(2);
      await reply.pressSequentially('gre');
      await expect.poll(() => list.getByTestId('canned-reply-option').count()).toBe(1);
      await page.screenshot({ path: join(process.cwd(), 'test-results', 'screenshots', 'support-team-conversation.png') });
      await reply.press('Enter');
      await expect.poll(() => reply.inputValue()).toBe('Hi! Thanks for reaching out — let me check that for you.');
      expect(await list.count()).toBe(0);

      // A .md file becomes a knowledge-base document, titled by its heading, or as the user says.
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Knowledge base', exact: true }).click();
      await page.getByTestId('kb-file-input').setInputFiles({ name: 'returns-policy.md', mimeType: 'text/markdown', buffer: Buffer.from('# Returns\n\nReturns are free within 30 days.\n') });
      await page.getByTestId('kb-file-upload').click();
      await page.getByTestId('kb-document-row').filter({ hasText: 'Returns' }).waitFor();
      const docs = await api('GET', '/api/knowledge-base/documents');
      const stored = await api('GET', `/api/knowledge-base/documents/${docs.documents[0].id}`);
      expect(stored.document).toMatchObject({ title: 'Returns', content: '# Returns\n\nReturns are free within 30 days.' });
      await page.getByTestId('kb-file-input').setInputFiles({ name: 'hours.txt', mimeType: 'text/plain', buffer: Buffer.from('Open 9 to 17 on weekdays.') });
      await page.getByTestId('kb-file-title').fill('Opening hours');
      await page.getByTestId('kb-file-upload').click();
      await page.getByTestId('kb-document-row').filter({ hasText: 'Opening hours' }).waitFor();
      expect(await page.getByTestId('kb-file-title').inputValue()).toBe('');
    });
  });
}
