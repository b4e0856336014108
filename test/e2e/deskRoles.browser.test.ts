import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { browserPrerequisites, dashboardPage, pageHeading, screenshotStep, signUpByApi, startServerAndBrowser, type ServerAndBrowser, type SignedUp } from '../support/browser.js';
import { uniqueEmail } from '../support/testServer.js';

/**
 * Two desk defects as a support lead and a teammate saw them in headless Chromium, each in its own browser
 * context: a teammate who joined after the lead's page loaded is named in the conversation header once assigned
 * (not "Assigned to …" until a reload) and by name in the history, whose quotes are not doubled, and an agent-role teammate sees an agent read-only with the reason before
 * typing, without Save or Delete. Needs `npm run build` and /usr/bin/chromium.
 */

const TIMEOUT = 60_000;
const UI = { timeout: 15_000 };
const SECRET = 'whsec_desk_roles_0123456789abcdef';
const NEWCOMER = 'Nadia Newcomer';

let stage: ServerAndBrowser;
let base: string;
let owner: SignedUp;
let lead: Page;
let agentId: string;
let conversationId: string;

/** A teammate invited by the owner and joined through the API: their id and session. */
async function joins(name: string, role: 'agent' | 'admin'): Promise<{ id: string; session: unknown }> {
  const invited = await owner.api('POST', '/api/team/invitations', { email: uniqueEmail('desk-roles'), role });
  expect(invited.status).toBe(201);
  const token = decodeURIComponent((invited.json.invitationUrl as string).split('/').at(-1)!);
  const res = await fetch(`${base}/api/auth/accept-invitation`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token, name, password: 'teammate password' }),
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { session: unknown; user: { id: string } };
  return { id: body.user.id, session: body.session };
}

if (browserPrerequisites()) {
  beforeAll(async () => {
    stage = await startServerAndBrowser({ REPLY_BURST_WINDOW_MS: '50' });
    base = stage.base;
    owner = await signUpByApi(base, { tag: 'desk-roles', companyName: 'Desk Roles' });
    agentId = (await owner.api('POST', '/api/agents', { name: 'Ava', systemPrompt: 'Be kind.' })).json.agent.id;
    const integrationId = (await owner.api('POST', '/api/integrations', { name: 'Try-out', connectorType: 'msgplatform', webhookSecret: SECRET, agentId })).json.integration.id;
    const sent = await owner.api('POST', `/api/integrations/${integrationId}/test-message`, { text: 'Can I pay with bitcoin?' });
    expect(sent.status).toBe(202);
    conversationId = sent.json.conversationId;
    lead = await dashboardPage(stage.browser, { session: owner.session, timeoutMs: UI.timeout, viewport: { width: 1280, height: 900 } });
  });

  afterAll(async () => {
    await stage?.close();
  });

  const step = screenshotStep('desk-roles', () => lead, TIMEOUT);

  describe('the desk follows the team and the role', () => {
    step('a teammate who joined after the page loaded is named in the header as soon as the conversation is theirs', async () => {
      await lead.goto(`${base}/#/conversations/${conversationId}`);
      await expect.poll(() => lead.getByTestId('assignee-label').textContent(), UI).toBe('Unassigned');
      // The list and the header have read the team (the owner alone) before the newcomer joins.
      await lead.getByTestId(`conversation-row-${conversationId}`).waitFor();
      const newcomer = await joins(NEWCOMER, 'admin');

      // Meanwhile a colleague opens the desk in their own browser.
      const colleague = await dashboardPage(stage.browser, { session: newcomer.session, timeoutMs: UI.timeout });
      await colleague.goto(`${base}/#/conversations/${conversationId}`);
      await expect.poll(() => colleague.getByTestId('assignee-label').textContent(), UI).toBe('Unassigned');

      // The lead assigns it to the newcomer from the picker (which reads the team again).
      await lead.getByTestId('assign-to').click();
      const picker = lead.getByTestId('assign-picker');
      await lead.getByTestId('assign-search').fill('nadia');
      await expect.poll(() => picker.getByTestId('assign-option').allTextContents(), UI).toEqual([expect.stringContaining(NEWCOMER)]);
      await lead.keyboard.press('Enter');
      await expect.poll(() => lead.getByTestId('assignee-label').textContent(), UI).toBe(`Assigned to ${NEWCOMER}`);
      await expect.poll(() => lead.getByTestId(`conversation-row-${conversationId}`).getByTestId('assignee').textContent(), UI).toBe(NEWCOMER);
      await expect.poll(() => colleague.getByTestId('assignee-label').textContent(), UI).toBe('Assigned to you');
      await colleague.context().close();

      // The history names who did it, and quotes the customer once.
      await lead.getByRole('tab', { name: 'Event history' }).click();
      const sentence = (type: string) => lead.locator(`[data-testid="event"][data-type="${type}"]`).first().getByTestId('event-sentence');
      await expect.poll(() => sentence('ConversationAssigned').textContent(), UI).toBe(`Assigned to ${NEWCOMER} by you.`);
      await expect.poll(() => sentence('HandoffSummarized').textContent(), UI).toBe('Handoff summary taken from the messages: the customer wants “Can I pay with bitcoin?”');
    });

    step('an agent-role teammate sees an agent read-only, with the reason, before typing: no Save, no Delete', async () => {
      const teammate = await joins('Al Agent', 'agent');
      const page = await dashboardPage(stage.browser, { session: teammate.session, timeoutMs: UI.timeout, viewport: { width: 1280, height: 900 } });
      await page.goto(`${base}/#/agents`);
      await page.getByTestId(`agent-card-${agentId}`).getByRole('link', { name: 'View', exact: true }).click();
      await pageHeading(page, 'Agent').waitFor();
      await expect.poll(() => page.getByTestId('agent-read-only').textContent(), UI).toContain('Read only for your role');
      expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe('Ava');
      expect(await page.getByLabel('Name', { exact: true }).isDisabled()).toBe(true);
      expect(await page.getByLabel('System prompt').isDisabled()).toBe(true);
      expect(await page.getByRole('button', { name: 'Save', exact: true }).count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Delete', exact: true }).count()).toBe(0);
      // A new agent is not theirs to create: said at once, not after a refused submit.
      await page.goto(`${base}/#/agents/new`);
      await page.getByText('Not available for your role').waitFor();
      await page.context().close();
    });
  });
}
