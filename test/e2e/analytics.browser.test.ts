import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserPrerequisites, dashboardBearer, dashboardPage, journeySteps, navLink, pageHeading, signUpInDashboard, startServerAndBrowser, type ServerAndBrowser } from '../support/browser.js';
import type { TestServer } from '../support/testServer.js';

/**
 * The Analytics page in headless Chromium: a newcomer signs up, their sandbox integration gets two questions the
 * builtin agent answers from the knowledge base and one it cannot answer (it hands off), and the page draws the
 * charts (uPlot canvases with a real size), shows the series' values and totals that match what happened, and
 * the handoff reason; at 1280 px and at 390 px. Needs `npm run build` and /usr/bin/chromium.
 */

const STEP_TIMEOUT = 60_000;
const UI_TIMEOUT = 15_000;


let server: TestServer;
let base: string;
let stage: ServerAndBrowser;
let page: Page;
let token: string;
let integrationId: number;
const pageErrors: string[] = [];

const api = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await res.json()) as any };
};

if (browserPrerequisites()) {
  beforeAll(async () => {
    stage = await startServerAndBrowser({ REPLY_BURST_WINDOW_MS: '100' });
    ({ server, base } = stage);
    page = await dashboardPage(stage.browser, { viewport: { width: 1280, height: 900 }, timeoutMs: UI_TIMEOUT }, pageErrors);
  });

  afterAll(async () => {
    await stage?.close();
  });

  journeySteps('analytics', () => page);

  const nav = (label: string) => navLink(page, label);
  const heading = (name: string) => pageHeading(page, name);
  const total = (id: string) => page.getByTestId(`total-${id}`).locator('.analytics-total-value');

  describe('Analytics in headless Chromium', () => {
    it('signs up; a new company sees the empty state', { timeout: STEP_TIMEOUT }, async () => {
      await signUpInDashboard(page, base, { companyName: 'Charts Ltd', email: 'owner@charts.example' });
      token = await dashboardBearer(page);

      await nav('Analytics').click();
      await heading('Analytics').waitFor();
      await page.getByTestId('analytics-empty').waitFor();
      expect(await page.locator('.uplot canvas').count()).toBe(0);
    });

    it('two questions answered from the knowledge base and one handed off, through a sandbox integration', { timeout: STEP_TIMEOUT }, async () => {
      expect((await api('POST', '/api/knowledge-base/documents', { title: 'Shipping', content: '# Shipping\n\nWe ship to Norway, Sweden and Denmark within 3 business days.' })).status).toBe(201);
      const agent = await api('POST', '/api/agents', { name: 'Ava' });
      expect(agent.status).toBe(201);
      const integration = await api('POST', '/api/integrations', { name: 'Try-out', connectorType: 'msgplatform', webhookSecret: 'whsec_analytics_browser_0123456789', agentId: agent.body.agent.id });
      expect(integration.status).toBe(201);
      integrationId = integration.body.integration.id;

      // One at a time, each answered before the next; each test message is a new test customer, so a conversation of its own.
      const questions = ['Do you ship to Norway?', 'How long does shipping to Denmark take?', 'Can you recommend a good pizza topping?'];
      for (const [i, text] of questions.entries()) {
        expect((await api('POST', `/api/integrations/${integrationId}/test-message`, { text })).status).toBe(202);
        await expect.poll(async () => (await api('GET', '/api/analytics')).body.totals.aiReplies, { timeout: 20_000 }).toBe(i + 1);
      }
      const totals = (await api('GET', '/api/analytics')).body.totals;
      expect(totals).toMatchObject({ conversationsStarted: 3, customerMessages: 3, aiReplies: 3, handedOff: 1, handoffReasons: { no_confident_answer: 1, agent_handoff: 0 } });
    });

    it('draws the charts with the series values, and the totals match what happened (1280 px)', { timeout: STEP_TIMEOUT }, async () => {
      await page.getByRole('button', { name: 'Refresh', exact: true }).click();
      await page.getByTestId('analytics-totals').waitFor();
      await expect.poll(() => total('ai-replies').textContent()).toBe('3');
      expect(await total('conversations').textContent()).toBe('3');
      expect(await total('customer-messages').textContent()).toBe('3');
      expect(await total('handed-off').textContent()).toBe('1');
      expect(await total('ai-resolved').textContent()).toBe('0');
      expect(await total('failed').textContent()).toBe('0');
      expect(await total('ai-first-response').textContent()).toMatch(/\d.*(ms|s)$/);

      // uPlot drew every chart on a canvas with a real size.
      const charts = ['chart-conversations', 'chart-ai', 'chart-first-response', 'chart-credits'];
      for (const id of charts) {
        const canvas = page.getByTestId(id).locator('.uplot canvas');
        await canvas.waitFor();
        const box = await canvas.boundingBox();
        expect(box?.width, id).toBeGreaterThan(200);
        expect(box?.height, id).toBeGreaterThan(100);
      }
      // The series and their values, under the chart.
      const aiLegend = page.getByTestId('chart-ai').getByTestId('chart-legend-item');
      expect(await aiLegend.allTextContents()).toEqual(['AI replies 3', 'AI-resolved 0', 'Handed off 1', 'Failed replies 0']);
      const convLegend = page.getByTestId('chart-conversations').getByTestId('chart-legend-item');
      expect(await convLegend.allTextContents()).toEqual(['Conversations started 3', 'Active conversations 3', 'Customer messages 3']);
      // Why it was handed off.
      // The builtin agent had no confident answer to the pizza question: its own reason, not the model's handoff.
      const reason = page.getByTestId('handoff-reasons').locator('tr[data-reason="no_confident_answer"]');
      expect(await reason.textContent()).toContain('1');
      await page.screenshot({ path: join(process.cwd(), 'test-results', 'analytics-1280.png'), fullPage: true }).catch(() => {});
    });

    it('filters by integration and by range; a range with no activity shows the empty state', { timeout: STEP_TIMEOUT }, async () => {
      await page.getByTestId('analytics-filter').selectOption({ label: 'Try-out' });
      await expect.poll(() => total('ai-replies').textContent()).toBe('3');
      await page.getByTestId('analytics-range').selectOption('custom');
      await page.getByTestId('analytics-from').fill('2020-01-01');
      await page.getByTestId('analytics-to').fill('2020-01-31');
      await page.getByTestId('analytics-empty').waitFor();
      await page.getByTestId('analytics-range').selectOption('7');
      await expect.poll(() => total('ai-replies').textContent()).toBe('3');
    });

    it('an owner sets the company timezone in Settings; Analytics then count days there', { timeout: STEP_TIMEOUT }, async () => {
      await nav('Settings').click();
      await heading('Settings').waitFor();
      const input = page.getByTestId('timezone-input');
      await expect.poll(() => input.inputValue()).toBe('UTC');
      await input.fill('Mars/Olympus');
      await page.getByRole('button', { name: 'Save timezone', exact: true }).click();
      await page.getByText('not an IANA timezone name').waitFor();
      await input.fill('Asia/Tokyo');
      await page.getByRole('button', { name: 'Save timezone', exact: true }).click();
      await expect.poll(async () => (await api('GET', '/api/settings/timezone')).body.timezone).toBe('Asia/Tokyo');
      await nav('Analytics').click();
      await heading('Analytics').waitFor();
      await page.getByText('(Asia/Tokyo)').waitFor();
      // Events counted before the change keep their (UTC) days; the totals are unchanged.
      await expect.poll(() => total('ai-replies').textContent()).toBe('3');
    });

    it('fits a 390 px phone: charts within the screen, no sideways scrolling', { timeout: STEP_TIMEOUT }, async () => {
      await page.setViewportSize({ width: 390, height: 844 });
      await page.getByTestId('chart-ai').locator('.uplot canvas').waitFor();
      await expect
        .poll(async () => (await page.getByTestId('chart-ai').locator('.uplot canvas').boundingBox())?.width ?? 0)
        .toBeLessThanOrEqual(390);
      const box = await page.getByTestId('chart-ai').locator('.uplot canvas').boundingBox();
      expect(box!.width).toBeGreaterThan(200);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      await page.screenshot({ path: join(process.cwd(), 'test-results', 'analytics-390.png'), fullPage: true }).catch(() => {});
      expect(pageErrors).toEqual([]);
    });
  });
}
