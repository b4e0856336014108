import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conversationIdFor } from '../../src/commands/conversations/conversationIds.js';
import { assignArm } from '../../src/domain/agents/experiments.js';
import { agentDashboard } from '../support/agentFixtures.js';
import { browserPrerequisites, saveFailureScreenshot, signUpInDashboard } from '../support/browser.js';
import { postPlatformWebhook } from '../support/platformWebhook.js';

/**
 * An agent's Experiment tab in headless Chromium: start an experiment between two versions with a holdout, see
 * each arm's conversations arrive in the live metrics with their intervals and the verdict, and end it by
 * publishing the winner. Customers write through the signed platform webhook; the builtin provider answers.
 * Needs `npm run build` and /usr/bin/chromium, like dashboard.browser.test.ts.
 */
const TIMEOUT = 90_000;
const SECRET = 'whsec_experiment_browser_0123456789';

if (browserPrerequisites()) {
  const dashboard = agentDashboard();
  const { api } = dashboard;
  let base: string;
  let page: Page;
  beforeAll(() => {
    ({ base, page } = dashboard);
  });

  describe('an agent experiment in the dashboard', () => {
    it('start with a split and a holdout, watch each arm’s live metrics, end by publishing the winner', { timeout: TIMEOUT }, async (ctx) => {
      ctx.onTestFailed(async () => {
        await saveFailureScreenshot(page, 'agent-experiment');
      });
      await signUpInDashboard(page, base, { companyName: 'Experiment Outfitters', email: `experiment-${Date.now()}@example.com` });
      const agent = (await api('POST', '/api/agents', { name: 'Ava', handoffMessage: 'Version one hands off.' })).json.agent;
      expect((await api('POST', `/api/agents/${agent.id}/versions`, { handoffMessage: 'Version two hands off.' })).status).toBe(201);
      const integration = (await api('POST', '/api/integrations', { name: 'Sandbox', connectorType: 'msgplatform', webhookSecret: SECRET, agentId: agent.id })).json.integration;

      // Agents → Edit → Experiment: pick the two versions, a 50/50 split and a 20 % holdout.
      await page.goto(`${base}/#/agents/${agent.id}`);
      await page.getByTestId('agent-experiment-tab').click();
      await page.getByLabel('Version A').selectOption('1');
      await page.getByLabel('Version B').selectOption('2');
      await page.getByLabel('Share of A (%)').fill('50');
      await page.getByLabel('Holdout (%)').fill('20');
      await page.getByRole('button', { name: 'Start experiment' }).click();
      const running = page.getByTestId('running-experiment');
      await expect.poll(() => running.textContent()).toMatch(/version 1 vs version 2.*Running/);
      await expect.poll(() => page.getByTestId('experiment-verdict').textContent()).toContain('Not significant yet at 95%');

      // One customer for each arm (by the documented hash of the conversation id) writes in.
      const experiment = (await api('GET', `/api/agents/${agent.id}/experiments`)).json.experiments[0];
      const split = { experimentId: experiment.id, arms: experiment.arms, holdout: experiment.holdout.share };
      const wanted = new Set(['a', 'b', 'holdout']);
      let armB = '';
      for (let i = 0; wanted.size > 0; i++) {
        const clientId = `shopper-${i}`;
        const arm = assignArm(split, conversationIdFor(integration.id, clientId));
        if (!wanted.delete(arm)) continue;
        if (arm === 'b') armB = conversationIdFor(integration.id, clientId);
        await postPlatformWebhook(base, integration.id, SECRET, { hook_type: 'inbox', type: 'from_client', message_id: `m-${clientId}`, client_id: clientId, channel_id: 1, transport: 'telegram', text: 'Can I pay with a cheque?' });
      }

      // The live metrics show one conversation per arm, each handed off (100%, with its Wilson interval).
      for (const arm of ['a', 'b', 'holdout']) {
        const row = page.getByTestId(`arm-${arm}`);
        await expect.poll(() => row.getByTestId('arm-conversations').textContent(), { timeout: 20_000 }).toBe('1');
        await expect.poll(() => row.getByTestId('arm-handoff').textContent(), { timeout: 20_000 }).toBe('100.0% (20.7%–100.0%)');
      }
      expect(await page.getByTestId('arm-a').textContent()).toContain('version 1');
      expect(await page.getByTestId('arm-holdout').textContent()).toContain('Holdout');

      // The conversation in arm B: version 2's handoff, and the sources panel names the arm.
      await page.goto(`${base}/#/conversations/${armB}`);
      const reply = page.locator('[data-testid="message"][data-author="agent"]');
      await expect.poll(() => reply.locator('.message-text').textContent()).toContain('Version two hands off.');
      await reply.getByTestId('answer-sources').locator('summary').click();
      await expect.poll(() => reply.getByTestId('answer-experiment-arm').textContent()).toContain('Experiment arm B');
      expect(await reply.getByTestId('answer-agent-version').textContent()).toContain('Agent version 2');
      await page.goto(`${base}/#/agents/${agent.id}/experiment`);
      await page.getByTestId('running-experiment').waitFor();

      // End: version 2 wins, with why; it is published and the experiment moves to the past ones.
      await page.getByLabel('Winner').selectOption('2');
      await page.getByLabel('Why').fill('Version two reads friendlier');
      await page.getByRole('button', { name: 'End and publish the winner' }).click();
      await expect.poll(() => page.getByTestId('past-experiment').textContent()).toMatch(/Version 1 vs 2.*Winner: version 2.*Version two reads friendlier/);
      expect(await page.getByTestId('running-experiment').count()).toBe(0);
      const versions = (await api('GET', `/api/agents/${agent.id}/versions`)).json;
      expect(versions.publishedVersion).toBe(2);
      const publications = (await api('GET', `/api/agents/${agent.id}/publications`)).json.publications;
      expect(publications[0]).toMatchObject({ version: 2, previousVersion: 1, reason: 'Version two reads friendlier' });
      // With no experiment running, owners may start the next one.
      await page.getByRole('button', { name: 'Start experiment' }).waitFor();
    });
  });
}
