import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { agentDashboard } from '../support/agentFixtures.js';
import { browserPrerequisites, saveFailureScreenshot, signUpInDashboard } from '../support/browser.js';
import { seedConversation } from '../support/replayFixtures.js';

/**
 * An agent's Versions and Tests tabs in headless Chromium: edit the draft, see the new version and its diff, publish it and see
 * the playground answer change, roll back with a reason and see it change back. The builtin provider answers a
 * question its (empty) knowledge base cannot with the version's handoff message, so every answer is exact.
 * Needs `npm run build` and /usr/bin/chromium, like dashboard.browser.test.ts.
 */
const TIMEOUT = 90_000;
const QUESTION = 'Can I pay with a cheque?';

if (browserPrerequisites()) {
  const dashboard = agentDashboard();
  const { api } = dashboard;
  let base: string;
  let page: Page;
  beforeAll(() => {
    ({ base, page } = dashboard);
  });

  /** Asks in the agent's playground (a new session each time) and resolves with the answer's text. */
  async function playgroundAnswer(agentId: string): Promise<string> {
    await page.goto(`${base}/#/agents/${agentId}/playground`);
    await page.getByRole('heading', { level: 1, name: 'Playground: Ava' }).waitFor();
    await page.getByTestId('playground-new-session').click();
    await expect.poll(() => page.getByTestId('playground-answer').count()).toBe(0);
    await page.getByTestId('playground-input').fill(QUESTION);
    await page.getByTestId('playground-send').click();
    const answer = page.getByTestId('playground-answer').last().locator('.message-text');
    await answer.waitFor({ timeout: 15_000 });
    return (await answer.textContent()) ?? '';
  }

  const versionRow = (n: number) => page.locator(`[data-testid="agent-version"][data-version="${n}"]`);

  describe('agent versions in the dashboard', () => {
    it('edit the draft, see a new version, publish, see the playground answer change, roll back, see it change back', { timeout: TIMEOUT }, async (ctx) => {
      ctx.onTestFailed(async () => {
        await saveFailureScreenshot(page, 'agent-versions');
      });
      await signUpInDashboard(page, base, { companyName: 'Versions Outfitters', email: `versions-${Date.now()}@example.com` });
      const agent = (await api('POST', '/api/agents', { name: 'Ava', systemPrompt: 'Be kind.\nBe brief.', handoffMessage: 'Version one hands off.' })).json.agent;
      expect(await playgroundAnswer(agent.id)).toContain('Version one hands off.');

      // Agents → Edit → Versions: version 1, published.
      await page.goto(`${base}/#/agents/${agent.id}`);
      await page.getByTestId('agent-versions-tab').click();
      await versionRow(1).waitFor();
      expect(await versionRow(1).textContent()).toContain('Published');

      // Edit the draft: a new version, not yet published, with its diff.
      await page.getByLabel('Draft system prompt').fill('Be kind.\nBe very brief.');
      await page.getByLabel('Draft handoff message').fill('Version two hands off.');
      await page.getByRole('button', { name: 'Save as new version' }).click();
      await versionRow(2).waitFor();
      await expect.poll(() => versionRow(2).textContent()).toMatch(/Draft.*changed System prompt, Handoff message/);
      const diff = page.getByTestId('version-diff');
      await expect.poll(() => diff.locator('[data-op="added"]').textContent()).toContain('Be very brief.');
      expect(await diff.locator('[data-op="removed"]').textContent()).toContain('Be brief.');
      await expect.poll(() => diff.locator('[data-field="handoffMessage"]').textContent()).toContain('Version two hands off.');
      // Saved, not published: customers and the playground still get version 1.
      expect(await playgroundAnswer(agent.id)).toContain('Version one hands off.');

      // Publish version 2: the playground answers with it.
      await page.goto(`${base}/#/agents/${agent.id}/versions`);
      await versionRow(2).getByRole('button', { name: 'Publish', exact: true }).click();
      await expect.poll(() => page.getByTestId('versions-summary').textContent()).toContain('version 2');
      await expect.poll(async () => await versionRow(2).textContent()).toContain('Published');
      expect(await playgroundAnswer(agent.id)).toContain('Version two hands off.');

      // Roll back to version 1, with a reason: the playground answers with version 1 again.
      await page.goto(`${base}/#/agents/${agent.id}/versions`);
      await versionRow(1).getByRole('button', { name: 'Roll back to this' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('Reason').fill('Customers found it curt');
      await dialog.getByRole('button', { name: 'Roll back', exact: true }).click();
      await expect.poll(() => page.getByTestId('versions-summary').textContent()).toContain('version 1');
      await expect.poll(() => page.getByTestId('publication').first().textContent()).toMatch(/Rolled back to version 1 \(was 2\).*Customers found it curt/);
      expect(await playgroundAnswer(agent.id)).toContain('Version one hands off.');
    });

    it('adds a test case on the Tests tab and runs it: it fails with version 1 and passes with the draft', { timeout: TIMEOUT }, async (ctx) => {
      ctx.onTestFailed(async () => {
        await saveFailureScreenshot(page, 'agent-tests');
      });
      const agent = (await api('POST', '/api/agents', { name: 'Bo', handoffMessage: 'Version one hands off.' })).json.agent;
      expect((await api('POST', `/api/agents/${agent.id}/versions`, { handoffMessage: 'Version two hands off.' })).status).toBe(201);

      await page.goto(`${base}/#/agents/${agent.id}`);
      await page.getByTestId('agent-tests-tab').click();
      await page.getByLabel('Case name').fill('Cheques go to people');
      await page.getByLabel('Customer messages').fill(QUESTION);
      await page.getByLabel('Answer must contain').fill('Version two');
      await page.getByLabel('Handoff').selectOption('yes');
      await page.getByRole('button', { name: 'Add test case' }).click();
      await expect.poll(() => page.getByTestId('test-case').textContent()).toMatch(/Cheques go to people.*Required.*contains “Version two” · hands off/);

      const run = page.getByTestId('test-run');
      await page.getByLabel('With version').selectOption('1');
      await page.getByRole('button', { name: 'Run tests' }).click();
      await expect.poll(() => run.getAttribute('data-status'), { timeout: 15_000 }).toBe('finished');
      expect(await page.getByTestId('test-run-case').getAttribute('data-status')).toBe('failed');
      await expect.poll(() => run.textContent()).toMatch(/0 passed, 1 failed \(1 required failed\).*Version one hands off.*✗ contains.*✓ handoff/);

      await page.getByLabel('With version').selectOption('2');
      await page.getByRole('button', { name: 'Run tests' }).click();
      await expect.poll(() => run.textContent(), { timeout: 15_000 }).toMatch(/Version 2: 1 passed, 0 failed/);
      expect(await page.getByTestId('test-run-case').getAttribute('data-status')).toBe('passed');
      // A run writes no conversation.
      expect((await api('GET', '/api/conversations')).json.conversations).toEqual([]);
    });

    it('the release gate: edit the prompt, see a case fail at the gate, fix the prompt, publish, see the new version answer, roll back', { timeout: TIMEOUT }, async (ctx) => {
      ctx.onTestFailed(async () => {
        await saveFailureScreenshot(page, 'agent-release');
      });
      const agent = (await api('POST', '/api/agents', { name: 'Ava', systemPrompt: 'Be kind.', handoffMessage: 'A person will answer soon.' })).json.agent;
      const required = { name: 'Cheques go to a person', turns: [QUESTION], expect: { handoff: true, contains: [{ kind: 'text', value: 'person' }] }, required: true };
      expect((await api('POST', `/api/agents/${agent.id}/test-cases`, required)).status).toBe(201);

      const editDraft = async (prompt: string, handoff: string, version: number) => {
        await page.goto(`${base}/#/agents/${agent.id}/versions`);
        await versionRow(1).waitFor();
        await page.getByLabel('Draft system prompt').fill(prompt);
        await page.getByLabel('Draft handoff message').fill(handoff);
        await page.getByRole('button', { name: 'Save as new version' }).click();
        await versionRow(version).waitFor();
      };
      const check = page.getByTestId('release-check');
      const runChecks = async () => {
        await page.goto(`${base}/#/agents/${agent.id}`);
        await page.getByTestId('agent-release-tab').click();
        await page.getByRole('button', { name: 'Run release checks' }).click();
        await expect.poll(() => check.getAttribute('data-status'), { timeout: 20_000 }).toBe('finished');
      };

      // Edit the prompt: the draft's handoff no longer says a person will answer.
      await editDraft('Be kind.\nBe brief.', 'Wait for our team.', 2);
      await runChecks();
      expect(await check.getAttribute('data-gate')).toBe('failed');
      expect(await page.getByTestId('release-case').getAttribute('data-status')).toBe('failed');
      expect(await check.textContent()).toMatch(/Version 2: 1 required case\(s\) fail.*Cheques go to a person.*“Wait for our team\.”/);
      expect(await page.getByRole('button', { name: /^Publish version/ }).count()).toBe(0);
      // Publishing around the gate is refused too.
      expect((await api('POST', `/api/agents/${agent.id}/versions/2/publish`, {})).json.error.code).toBe('RELEASE_CHECKS_REQUIRED');

      // Fix the prompt: the check passes and the version is published.
      await editDraft('Be kind.\nBe brief.\nSay who will answer.', 'A person from our team will answer.', 3);
      await runChecks();
      expect(await check.getAttribute('data-gate')).toBe('passed');
      await page.getByRole('button', { name: 'Publish version 3' }).click();
      await expect.poll(async () => (await api('GET', `/api/agents/${agent.id}`)).json.agent.handoffMessage).toBe('A person from our team will answer.');
      expect(await playgroundAnswer(agent.id)).toContain('A person from our team will answer.');
      const [published] = (await api('GET', `/api/agents/${agent.id}/publications`)).json.publications;
      expect(published).toMatchObject({ version: 3, checks: { overridden: false, failedCases: [] } });

      // Roll back to version 1 with a reason: the playground answers with it again.
      await page.goto(`${base}/#/agents/${agent.id}/versions`);
      await versionRow(1).getByRole('button', { name: 'Roll back to this' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('Reason').fill('The old wording tested better');
      await dialog.getByRole('button', { name: 'Roll back', exact: true }).click();
      await expect.poll(() => page.getByTestId('versions-summary').textContent()).toContain('version 1');
      expect(await playgroundAnswer(agent.id)).toContain('A person will answer soon.');
    });

    it('an agent whose team relies on the gate: the form saves an edit as a draft and opens the Release tab; the name changes in place', { timeout: TIMEOUT }, async (ctx) => {
      ctx.onTestFailed(async () => {
        await saveFailureScreenshot(page, 'agent-form-gated');
      });
      const agent = (await api('POST', '/api/agents', { name: 'Cy', handoffMessage: 'A person will answer soon.' })).json.agent;
      const required = { name: 'Cheques go to a person', turns: [QUESTION], expect: { handoff: true }, required: true };
      expect((await api('POST', `/api/agents/${agent.id}/test-cases`, required)).status).toBe(201);

      await page.goto(`${base}/#/agents/${agent.id}`);
      await page.getByLabel('Name', { exact: true }).fill('Cyd');
      await page.getByLabel('Handoff message', { exact: true }).fill('Our team will answer.');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await expect.poll(() => page.url()).toContain(`#/agents/${agent.id}/release`);
      await page.getByRole('heading', { name: 'Check a version before it goes live' }).waitFor();
      expect(await page.getByLabel('Version to check').inputValue()).toBe('2');
      // Customers keep version 1 until the draft passes the gate; the name changed at once.
      expect(await api('GET', `/api/agents/${agent.id}/versions`).then((r) => r.json)).toMatchObject({ publishedVersion: 1, draftVersion: 2 });
      expect((await api('GET', `/api/agents/${agent.id}`)).json.agent).toMatchObject({ name: 'Cyd', handoffMessage: 'A person will answer soon.' });
    });

    it('“Make a test case” in a conversation the agent answered opens its Tests tab on the new case', { timeout: TIMEOUT }, async (ctx) => {
      ctx.onTestFailed(async () => {
        await saveFailureScreenshot(page, 'make-test-case');
      });
      const agent = (await api('POST', '/api/agents', { name: 'Di' })).json.agent;
      const companyId = (await api('GET', '/api/auth/me')).json.company.companyId as string;
      const { conversationId } = await seedConversation(dashboard.server.adapters.eventStore, companyId, [
        { customer: ['Do you ship to Iceland?'], answer: { agent: 'Yes, within 5 days.', agentId: agent.id } },
      ]);
      await page.goto(`${base}/#/conversations/${conversationId}`);
      await page.getByTestId('make-test-case').click();
      await expect.poll(() => page.url()).toContain(`#/agents/${agent.id}/tests?case=`);
      const made = page.locator('[data-testid="test-case"][data-new="true"]');
      await expect.poll(() => made.textContent()).toMatch(/Do you ship to Iceland\?.*New|New.*Do you ship to Iceland\?/);
      const [testCase] = (await api('GET', `/api/agents/${agent.id}/test-cases`)).json.testCases;
      expect(testCase).toMatchObject({ turns: ['Do you ship to Iceland?'], reference: { kind: 'agent', text: 'Yes, within 5 days.', conversationId } });
      expect(page.url()).toContain(`case=${testCase.id}`);
    });
  });
}
