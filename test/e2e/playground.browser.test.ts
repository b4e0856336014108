import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { agentDashboard } from '../support/agentFixtures.js';
import { browserPrerequisites, saveFailureScreenshot, signUpInDashboard } from '../support/browser.js';
import type { TestServer } from '../support/testServer.js';

/**
 * "See what the AI does" in headless Chromium: a reply's Sources in the conversation view (and its event
 * history), a source opening its knowledge-base document, and an agent-playground answer with its sources on a
 * 390 px phone, reopened later from its recent-sessions list. Needs `npm run build` and /usr/bin/chromium, like dashboard.browser.test.ts.
 */
const TIMEOUT = 90_000;

if (browserPrerequisites()) {
  const dashboard = agentDashboard();
  const { api } = dashboard;
  let server: TestServer;
  let base: string;
  let page: Page;
  beforeAll(() => {
    ({ server, base, page } = dashboard);
  });

  describe('answer sources and the agent playground', () => {
    it("shows a reply's sources in the conversation view and the event history, opens the source, and answers in the playground with its sources", { timeout: TIMEOUT }, async (ctx) => {
      ctx.onTestFailed(async () => {
        await saveFailureScreenshot(page, 'playground');
      });
      await signUpInDashboard(page, base, { companyName: 'Sources Outfitters', email: `sources-${Date.now()}@example.com` });

      const agent = (await api('POST', '/api/agents', { name: 'Ava', handoffMessage: 'A colleague will reply soon.' })).json.agent;
      const doc = (await api('POST', '/api/knowledge-base/documents', { title: 'Shipping', content: 'We ship to Norway, Sweden and Denmark within 5 working days.' })).json.document;
      const integration = (await api('POST', '/api/integrations', { name: 'Sandbox', connectorType: 'msgplatform', webhookSecret: 'whsec_sources_0123456789', agentId: agent.id })).json.integration;
      const sent = await api('POST', `/api/integrations/${integration.id}/test-message`, { text: 'Do you ship to Norway?' });
      expect(sent.status).toBe(202);
      const conversationId = sent.json.conversationId as string;
      await expect
        .poll(async () => (await api('GET', `/api/conversations/${conversationId}`)).json.messages.some((m: { author: string }) => m.author === 'agent'), { timeout: 15_000 })
        .toBe(true);

      // The conversation view: "Sources" under the AI reply, collapsed, naming the document it quoted.
      await page.goto(`${base}/#/conversations/${conversationId}`);
      const reply = page.locator('[data-testid="message"][data-author="agent"]');
      await expect.poll(() => reply.locator('.message-text').textContent()).toContain('We ship to Norway');
      const sources = reply.getByTestId('answer-sources');
      expect(await sources.getAttribute('open')).toBeNull();
      await sources.locator('summary').click();
      const link = sources.getByRole('link', { name: 'Shipping' });
      expect(await link.getAttribute('href')).toBe(`#/knowledge-base?document=${doc.id}`);
      await expect.poll(() => sources.textContent()).toMatch(/0 in \/ 0 out tokens/);
      // Why it answered: the evidence (the probability of a right answer) against what the agent's setting needs.
      expect(await sources.getByTestId('answer-evidence').textContent()).toMatch(/^Evidence [01](\.\d+)? \(probability of a right answer\) · setting balanced \(answers from 0\.72\) · answered$/);
      // The customer's own message has none.
      expect(await page.locator('[data-testid="message"][data-author="customer"]').getByTestId('answer-sources').count()).toBe(0);

      // The event history shows them under AgentReplied too.
      await page.getByRole('tab', { name: 'Event history' }).click();
      const repliedEvent = page.locator('[data-testid="event"][data-type="AgentReplied"]');
      await repliedEvent.getByTestId('answer-sources').locator('summary').click();
      await repliedEvent.getByRole('link', { name: 'Shipping' }).waitFor();

      // A source opens its document on the knowledge-base page.
      await repliedEvent.getByRole('link', { name: 'Shipping' }).click();
      const dialog = page.getByRole('dialog');
      await expect.poll(() => dialog.getByLabel('Content', { exact: true }).inputValue()).toBe('We ship to Norway, Sweden and Denmark within 5 working days.');
      await dialog.getByRole('button', { name: 'Close', exact: true }).first().click();
      await expect.poll(() => page.evaluate(() => location.hash)).toBe('#/knowledge-base');

      // The playground, on a phone: Agents → Try it, ask, and the answer shows its sources (open there).
      await page.setViewportSize({ width: 390, height: 800 });
      await page.goto(`${base}/#/agents`);
      await page.getByTestId('agent-try-it').click();
      await page.getByRole('heading', { level: 1, name: 'Playground: Ava' }).waitFor();
      // A new session asks how the agent's action calls are answered: mocked unless an owner or admin picks live.
      expect(await page.getByTestId('playground-actions').inputValue()).toBe('mocked');
      expect(await page.getByTestId('playground-actions').locator('option[value="live"]').isDisabled()).toBe(false);
      await page.getByTestId('playground-input').fill('How fast do you ship to Denmark?');
      await page.getByTestId('playground-send').click();
      const answer = page.getByTestId('playground-answer');
      await expect.poll(() => answer.locator('.message-text').textContent(), { timeout: 15_000 }).toContain('Denmark within 5 working days');
      const answerSources = answer.getByTestId('answer-sources');
      expect(await answerSources.getAttribute('open')).not.toBeNull();
      await answerSources.getByRole('link', { name: 'Shipping' }).waitFor();
      await expect.poll(() => answerSources.textContent()).toMatch(/tokens · \d+ ms · \$?0\.00/);
      expect(await answerSources.getByTestId('answer-evidence').textContent()).toMatch(/^Evidence [01](\.\d+)? \(probability of a right answer\) · setting balanced \(answers from 0\.72\) · answered$/);
      expect(await page.getByTestId('playground-actions-mode').textContent()).toBe('Actions: mocked');
      // Usable at 390 px: nothing wider than the screen.
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);

      // A reload continues the same session; New session starts an empty one.
      await page.reload();
      await page.getByTestId('playground-answer').waitFor();
      await page.getByTestId('playground-new-session').click();
      await expect.poll(() => page.getByTestId('playground-answer').count()).toBe(0);

      // Recent sessions: only the past one, by its first question (the new one is stored with its first question,
      // so it is not listed yet and none is current); opening it shows its questions and answers again, and a
      // reload then continues it.
      const listed = page.getByTestId('playground-session');
      await expect.poll(() => listed.count(), { timeout: 10_000 }).toBe(1);
      expect(await listed.first().getAttribute('aria-current')).toBeNull();
      const past = listed.filter({ hasText: 'How fast do you ship to Denmark?' });
      await expect.poll(() => past.textContent()).toMatch(/1 question · started by you/);
      await past.click();
      await expect.poll(() => page.getByTestId('playground-answer').locator('.message-text').textContent(), { timeout: 10_000 }).toContain('Denmark within 5 working days');
      await expect.poll(() => past.getAttribute('aria-current')).toBe('true');
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      await page.reload();
      await expect.poll(() => page.getByTestId('playground-answer').locator('.message-text').textContent(), { timeout: 10_000 }).toContain('Denmark within 5 working days');

      // Nothing of this became a conversation.
      expect((await api('GET', '/api/conversations')).json.conversations.map((c: { id: string }) => c.id)).toEqual([conversationId]);
    });

    it('given a strict agent, when the playground asks what the knowledge base does not say, then the sources panel shows the handoff, its evidence and the setting', { timeout: TIMEOUT }, async (ctx) => {
      ctx.onTestFailed(async () => {
        await saveFailureScreenshot(page, 'playground-why');
      });
      const [agent] = (await api('GET', '/api/agents')).json.agents as { id: string }[];
      expect((await api('PATCH', `/api/agents/${agent!.id}`, { answerThreshold: 'strict' })).status).toBe(200);
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.goto(`${base}/#/agents`);
      await page.getByTestId('agent-try-it').click();
      await page.getByTestId('playground-new-session').click();
      await expect.poll(() => page.getByTestId('playground-answer').count()).toBe(0);
      await page.getByTestId('playground-input').fill('Do you ship to Finland?');
      await page.getByTestId('playground-send').click();
      const answer = page.getByTestId('playground-answer');
      await expect.poll(() => answer.locator('.message-text').textContent(), { timeout: 15_000 }).toBe('A colleague will reply soon.');
      const why = answer.getByTestId('answer-sources').getByTestId('answer-evidence');
      await expect.poll(() => why.textContent()).toMatch(/^Evidence 0(\.\d+)? \(probability of a right answer\) · setting strict \(answers from 0\.78\) · handed off: no confident answer$/);
      await page.screenshot({ path: 'test-results/playground-handoff-why.png' }).catch(() => {});
    });
  });
}
