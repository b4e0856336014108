import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { allProjections } from '../../src/projections/index.js';
import { createAgent, createPlatformIntegration, signUp, useOpenAiLlm } from '../support/api.js';
import { startFakeLlm, type FakeLlm } from '../support/fakeLlm.js';
import { startFakePlatform, type FakePlatform } from '../support/fakePlatform.js';
import { sendPlatformWebhook } from '../support/platformWebhook.js';
import { samples, valueOf } from '../support/prometheus.js';
import { seedConversation } from '../support/replayFixtures.js';
import { startTestServer, type TestServer } from '../support/testServer.js';

const SECRET = 'whsec_metrics_0123456789';
const PLATFORM_TOKEN = 'platform-token-metrics';
const LLM_KEY = 'sk-test-metrics-key';

let server: TestServer;
let base: string;
let platform: FakePlatform;
let llm: FakeLlm;

beforeAll(async () => {
  platform = await startFakePlatform({ token: PLATFORM_TOKEN });
  llm = await startFakeLlm({ apiKey: LLM_KEY, reply: 'We ship everywhere.', usage: { prompt_tokens: 10, completion_tokens: 5 } });
  server = await startTestServer({
    ALLOW_PRIVATE_PLATFORM_URLS: 'true',
    REPLY_BURST_WINDOW_MS: '0',
    LLM_MAX_RETRIES: '0',
    LLM_RETRY_DELAYS_MS: '20',
    // One answer of this model costs more than a new company's $5: a replay with it runs out of credits.
    LLM_PRICE_TABLE: JSON.stringify({ pricey: { inputMicrosPer1K: 1_000_000_000, outputMicrosPer1K: 0 } }),
  });
  base = await server.listen(0, '127.0.0.1');
});
afterAll(async () => {
  await server?.close();
  await platform?.close();
  await llm?.close();
});
afterEach(() => llm.reset());

async function company() {
  const co = await signUp(server, 'Metrics Inc');
  const agentId = await createAgent(co, { name: 'Ava', handoffMessage: 'A colleague will reply soon.' });
  await useOpenAiLlm(co, llm.url, { apiKey: LLM_KEY, model: 'fake-model' });
  const integrationId = await createPlatformIntegration(co, { agentId, apiUrl: platform.url, apiToken: PLATFORM_TOKEN, webhookSecret: SECRET });
  return { companyId: co.company.companyId, integrationId };
}

let seq = 0;
const webhook = (integrationId: number, body: string, secret = SECRET) => sendPlatformWebhook(base, integrationId, secret, body);
const message = (text: string) =>
  JSON.stringify({ hook_type: 'inbox', type: 'from_client', message_id: `mm-${Date.now()}-${seq++}`, client_id: `c-${seq}`, channel_id: 1, transport: 'telegram', text });

async function scrape(headers: Record<string, string> = {}) {
  const res = await fetch(`${base}/metrics`, { headers });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text();
}

describe('GET /metrics (Prometheus)', () => {
  it('counts webhooks by outcome, times the LLM call of the reply, and shows projection lag and event-loop delay', async () => {
    const { integrationId } = await company();
    const before = await scrape();
    const webhooks = (text: string, outcome: string) => valueOf(text, 'mas_webhook_request_duration_seconds_count', { outcome });
    const llmCalls = (text: string) => valueOf(text, 'mas_llm_request_duration_seconds_count', { provider: 'openai', outcome: 'ok' });

    const body = message('Do you ship to Norway?');
    expect(await webhook(integrationId, body)).toBe(200);
    expect(await webhook(integrationId, body)).toBe(200); // a redelivery
    expect(await webhook(integrationId, message('forged'), 'whsec_not_the_secret_0000')).toBe(401);
    expect(await webhook(987_654, message('nobody'))).toBe(404);
    await platform.waitForMessages(1, 10_000);

    const after = await scrape();
    expect(webhooks(after, 'processed') - webhooks(before, 'processed')).toBe(1);
    expect(webhooks(after, 'duplicate') - webhooks(before, 'duplicate')).toBe(1);
    expect(webhooks(after, 'rejected_unauthorized') - webhooks(before, 'rejected_unauthorized')).toBe(1);
    expect(webhooks(after, 'rejected_not_found') - webhooks(before, 'rejected_not_found')).toBe(1);
    // Latency: the sum of the durations grew, and every acknowledged webhook is in the +Inf bucket.
    expect(valueOf(after, 'mas_webhook_request_duration_seconds_sum', { outcome: 'processed' })).toBeGreaterThan(0);
    expect(valueOf(after, 'mas_webhook_request_duration_seconds_bucket', { outcome: 'processed', le: '+Inf' })).toBe(webhooks(after, 'processed'));

    expect(llmCalls(after) - llmCalls(before)).toBe(1);
    expect(valueOf(after, 'mas_llm_request_duration_seconds_sum', { provider: 'openai', outcome: 'ok' })).toBeGreaterThan(0);

    // One lag series per projection, back to 0 once they have caught up with the head.
    await expect
      .poll(async () => {
        const text = await scrape();
        return samples(text, 'mas_projection_lag_positions').map((s) => [s.labels.projection, s.value]);
      }, { timeout: 5000, interval: 100 })
      .toEqual(expect.arrayContaining(allProjections.map((p) => [p.name, 0])));
    expect(valueOf(after, 'mas_event_store_head_position')).toBeGreaterThan(0);

    for (const stat of ['p50', 'p99', 'max']) expect(samples(after, 'mas_event_loop_delay_seconds', { thread: 'api', stat })).toHaveLength(1);
    // prom-client's default process metrics.
    expect(samples(after, 'process_cpu_user_seconds_total')).toHaveLength(1);
    expect(samples(after, 'nodejs_heap_size_used_bytes')).toHaveLength(1);
  });

  it('counts LLM errors by provider and reason', async () => {
    const { integrationId } = await company();
    const before = await scrape();
    const errors = (text: string) => valueOf(text, 'mas_llm_errors_total', { provider: 'openai', reason: 'server_error' });
    llm.failNext(1, 500); // the first attempt fails, the worker's retry answers
    expect(await webhook(integrationId, message('Is it in stock?'))).toBe(200);
    await expect.poll(() => platform.messages().length, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
    const after = await scrape();
    expect(errors(after) - errors(before)).toBe(1);
    expect(valueOf(after, 'mas_llm_request_duration_seconds_count', { provider: 'openai', outcome: 'error' })).toBeGreaterThanOrEqual(1);
  });

  it("shows a company's reply job while it runs, by company id only, and drops the series once it is done", async () => {
    const { companyId, integrationId } = await company();
    const sent = platform.messages().length;
    llm.delayMs = 1500;
    expect(await webhook(integrationId, message('Slow answer please'))).toBe(200);
    await expect
      .poll(async () => valueOf(await scrape(), 'mas_worker_jobs', { queue: 'reply', company_id: companyId, state: 'running' }), { timeout: 5000, interval: 50 })
      .toBe(1);
    const during = await scrape();
    expect(during).not.toContain('Metrics Inc');
    await platform.waitForMessages(sent + 1, 10_000);
    await expect.poll(async () => samples(await scrape(), 'mas_worker_jobs', { company_id: companyId }), { timeout: 5000, interval: 50 }).toEqual([]);
  });
});

describe('replay metrics', () => {
  const draft = { systemPrompt: 'You are the draft.', temperature: 0.1, useKnowledgeBase: false };
  const finished = (text: string, outcome: string) => valueOf(text, 'mas_replays_finished_total', { outcome });
  const answers = (text: string, status: string) => valueOf(text, 'mas_replay_answers_total', { status });
  const jobsRunning = (text: string) => valueOf(text, 'mas_replay_jobs_running');

  async function replayCompany() {
    const co = await signUp(server, 'Replay Metrics Inc');
    expect((await co.call('PUT', '/api/llm-config', { provider: 'openai', baseUrl: llm.url, apiKey: LLM_KEY, model: 'fake-model' })).statusCode).toBe(200);
    const seed = (questions: string[]) =>
      seedConversation(server.adapters.eventStore, co.company.companyId, questions.map((q, i) => ({ customer: [q], answer: { operator: `answer ${i}` } })));
    const start = async (conversationId: string, d: object = draft) => {
      const estimate = (await co.call('POST', '/api/replays/estimate', { draft: d, conversationIds: [conversationId] })).json().estimate;
      const res = await co.call('POST', '/api/replays', { draft: d, conversationIds: [conversationId], confirmedCostMicros: estimate.costMicros });
      expect(res.statusCode).toBe(201);
      return res.json().replay.id as string;
    };
    const settled = async (id: string) => {
      await expect.poll(async () => (await co.call('GET', `/api/replays/${id}`)).json().replay.status, { timeout: 15_000, interval: 50 }).not.toBe('running');
      return (await co.call('GET', `/api/replays/${id}`)).json().replay as { status: string; progress: { done: number }; failedAnswers: number };
    };
    return { ...co, seed, start, settled };
  }

  it('every series exists at 0 before the first replay, so rate() sees the first one', async () => {
    const text = await scrape();
    for (const outcome of ['completed', 'failed', 'cancelled']) expect(samples(text, 'mas_replays_finished_total', { outcome }), outcome).toHaveLength(1);
    for (const status of ['answered', 'failed']) expect(samples(text, 'mas_replay_answers_total', { status }), status).toHaveLength(1);
    expect(samples(text, 'mas_replay_jobs_running')).toHaveLength(1);
  });

  it('counts replays by outcome (completed, failed, cancelled) and their answers by status, once each, and shows the jobs running', async () => {
    const co = await replayCompany();
    const before = await scrape();

    // Completed, its first turn's LLM call failing (both attempts) and its second answered.
    const completedConversation = await co.seed(['first question', 'second question']);
    llm.failNext(2, 500);
    const completed = await co.settled(await co.start(completedConversation.conversationId));
    expect(completed).toMatchObject({ status: 'completed', progress: { done: 2 }, failedAnswers: 1 });

    // Failed: one answer of the pricey model spends the credits, the next turn stops the replay.
    const brokeCo = await replayCompany();
    const brokeConversation = await brokeCo.seed(['one', 'two', 'three']);
    const failed = await brokeCo.settled(await brokeCo.start(brokeConversation.conversationId, { ...draft, model: 'pricey' }));
    expect(failed).toMatchObject({ status: 'failed', progress: { done: 1 }, failedAnswers: 0 });

    // Cancelled while its job waits on the model: the job is counted while it runs, and no longer after.
    llm.delayMs = 10_000;
    try {
      const slow = await co.seed(['slow question']);
      const id = await co.start(slow.conversationId);
      await expect.poll(async () => jobsRunning(await scrape()), { timeout: 5000, interval: 50 }).toBe(1);
      expect((await co.call('POST', `/api/replays/${id}/cancel`)).json().replay.status).toBe('cancelled');
      expect((await co.call('POST', `/api/replays/${id}/cancel`)).statusCode).toBe(200); // again: a no-op, not counted again
      await expect.poll(async () => jobsRunning(await scrape()), { timeout: 5000, interval: 50 }).toBe(0);
    } finally {
      llm.delayMs = 0;
    }

    const after = await scrape();
    expect({
      completed: finished(after, 'completed') - finished(before, 'completed'),
      failed: finished(after, 'failed') - finished(before, 'failed'),
      cancelled: finished(after, 'cancelled') - finished(before, 'cancelled'),
      answered: answers(after, 'answered') - answers(before, 'answered'),
      failedAnswers: answers(after, 'failed') - answers(before, 'failed'),
    }).toEqual({ completed: 1, failed: 1, cancelled: 1, answered: 2, failedAnswers: 1 });
    expect(after).not.toContain('Replay Metrics Inc');
  });
});

describe('METRICS_TOKEN', () => {
  it('when set, a scrape needs it as a bearer token', async () => {
    const token = 'metrics-token-0123456789abcdef';
    const guarded = await startTestServer({ METRICS_TOKEN: token });
    try {
      const none = await guarded.app.inject({ method: 'GET', url: '/metrics' });
      expect(none.statusCode).toBe(401);
      expect(none.json()).toEqual({ error: { code: 'UNAUTHORIZED', message: 'Missing or invalid metrics token' } });
      const wrong = await guarded.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer metrics-token-0123456789abcdeX' } });
      expect(wrong.statusCode).toBe(401);
      const right = await guarded.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${token}` } });
      expect(right.statusCode).toBe(200);
      expect(right.body).toContain('# TYPE mas_webhook_request_duration_seconds histogram');
    } finally {
      await guarded.close();
    }
  });
});
