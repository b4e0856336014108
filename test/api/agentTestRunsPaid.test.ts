import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/ports/clock.js';
import { silentLogger } from '../../src/ports/logger.js';
import { runAgentTests } from '../../src/workers/replays/agentTestRunner.js';
import { createFairSlots } from '../../src/shared/fairness/fairSlots.js';
import { signUp, type Company } from '../support/api.js';
import { startFakeLlm, type FakeLlm } from '../support/fakeLlm.js';
import { startTestServer, uniqueEmail, type TestServer } from '../support/testServer.js';

/**
 * A test run answers every case with the chosen version's model (docs/api/agents-and-llm.md#test-cases-and-test-runs):
 * on the company's OpenAI-compatible model its estimate is confirmed up front (as replays and release checks
 * are), each answer is charged once however often the run's job is delivered, and the run stops when the
 * credits run out. It never writes a conversation. On the builtin provider it stays free.
 */

let server: TestServer;
let llm: FakeLlm;
const PRICES = {
  'gpt-4o-mini': { inputMicrosPer1K: 1000, outputMicrosPer1K: 2000 },
  'gpt-4o': { inputMicrosPer1K: 2000, outputMicrosPer1K: 4000 },
  pricey: { inputMicrosPer1K: 100_000_000, outputMicrosPer1K: 100_000_000 },
};

beforeAll(async () => {
  llm = await startFakeLlm({ usage: { prompt_tokens: 300, completion_tokens: 40 } });
  server = await startTestServer({ ALLOW_PRIVATE_PLATFORM_URLS: 'true', LLM_PRICE_TABLE: JSON.stringify(PRICES), LLM_MAX_RETRIES: '0' });
}, 30_000);
afterAll(async () => {
  await server?.close();
  await llm?.close();
});

const shipping = { name: 'Shipping', turns: ['Do you ship to Norway?'], expect: { contains: [{ kind: 'text', value: 'norway' }] }, required: true };
const script = { name: 'Script', turns: ['Hello', 'Can I pay with a cheque?'], expect: { contains: [{ kind: 'text', value: 'cheque' }] }, required: false };

/** A company on the fake OpenAI-compatible model, with an agent whose version 2 asks for `model`, and two cases (three turns). */
async function paidAgent(name: string, model: string) {
  const co = await signUp(server, name, uniqueEmail(name));
  expect((await co.call('PUT', '/api/llm-config', { provider: 'openai', baseUrl: llm.url, apiKey: 'sk-runs', model: 'gpt-4o-mini' })).statusCode).toBe(200);
  const agentId = (await co.call('POST', '/api/agents', { name: 'Ava', useKnowledgeBase: false })).json().agent.id as string;
  for (const c of [shipping, script]) expect((await co.call('POST', `/api/agents/${agentId}/test-cases`, c)).statusCode).toBe(201);
  const version = (await co.call('POST', `/api/agents/${agentId}/versions`, { model })).json().version.version as number;
  return { ...co, agentId, version };
}

async function settled(co: Company, agentId: string, runId: string) {
  await expect.poll(async () => (await co.call('GET', `/api/agents/${agentId}/test-runs/${runId}`)).json().run.status, { timeout: 15_000, interval: 50 }).not.toBe('running');
  return (await co.call('GET', `/api/agents/${agentId}/test-runs/${runId}`)).json().run;
}

const answerCharges = async (co: Company) =>
  (await co.call('GET', '/api/credits')).json().credits.ledger.filter((l: { reason: string }) => l.reason.startsWith('Test answer')) as { deltaMicros: number; reason: string }[];

describe('test runs on a paid model', () => {
  it('given a paid model, when the run is started without confirming its estimate, then 409 CONFLICT names it and nothing runs; confirmed, the version’s model answers every case and each answer is charged', async () => {
    const co = await paidAgent('PaidRuns', 'gpt-4o');
    const estimated = await co.call('POST', `/api/agents/${co.agentId}/test-runs/estimate`, { version: co.version });
    expect(estimated.statusCode).toBe(200);
    const estimate = estimated.json().estimate;
    expect(estimate).toMatchObject({ version: co.version, cases: 2, messages: 3, provider: 'openai', model: 'gpt-4o' });
    expect(estimate.costMicros).toBeGreaterThan(0);
    const calls = llm.completionRequests.length;

    const unconfirmed = await co.call('POST', `/api/agents/${co.agentId}/test-runs`, { version: co.version });
    expect(unconfirmed.statusCode).toBe(409);
    expect(unconfirmed.json().error).toMatchObject({ code: 'CONFLICT', message: expect.stringContaining(`${estimate.costMicros} micro-dollars for 3 messages`) });
    const short = await co.call('POST', `/api/agents/${co.agentId}/test-runs`, { version: co.version, confirmedCostMicros: estimate.costMicros - 1 });
    expect(short.statusCode).toBe(409);

    const started = await co.call('POST', `/api/agents/${co.agentId}/test-runs`, { version: co.version, confirmedCostMicros: estimate.costMicros });
    expect(started.statusCode).toBe(202);
    expect(started.json().run).toMatchObject({ provider: 'openai', model: 'gpt-4o', estimatedCostMicros: estimate.costMicros, stopped: null });
    const run = await settled(co, co.agentId, started.json().run.id);
    expect(run).toMatchObject({ status: 'finished', passed: 2, failed: 0 });
    expect(run.cases.map((c: any) => c.answer.text)).toEqual(['Echo: Do you ship to Norway?', 'Echo: Can I pay with a cheque?']);
    // Three answers (the script's two turns, the second seeing the first's answer), all with the version's model.
    const asked = llm.completionRequests.slice(calls).map((r) => r.body as { model: string; messages: { role: string; content: string }[] });
    expect(asked.map((b) => b.model)).toEqual(['gpt-4o', 'gpt-4o', 'gpt-4o']);
    expect(asked[2]!.messages.map((m) => m.content)).toEqual(expect.arrayContaining(['Hello', 'Echo: Hello', 'Can I pay with a cheque?']));
    // 300 input tokens at 2 micro-dollars, 40 output tokens at 4: 760 per answer.
    await expect.poll(async () => (await answerCharges(co)).map((l) => l.deltaMicros), { timeout: 5000 }).toEqual([-760, -760, -760]);
    expect((await co.call('GET', '/api/conversations')).json().conversations).toEqual([]);
  });

  it('given the run’s job delivered twice at once, when both answer the cases, then each answer is charged once and each case recorded once', async () => {
    const co = await paidAgent('TwiceRuns', 'gpt-4o-mini');
    const { costMicros } = (await co.call('POST', `/api/agents/${co.agentId}/test-runs/estimate`, {})).json().estimate;
    // The worker's delivery waits on a slow model; a second delivery answers meanwhile with an instant one.
    llm.delayMs = 1000;
    const before = llm.completionRequests.length;
    try {
      const runId = (await co.call('POST', `/api/agents/${co.agentId}/test-runs`, { confirmedCostMicros: costMicros })).json().run.id as string;
      await expect.poll(() => llm.completionRequests.length, { timeout: 10_000, interval: 20 }).toBeGreaterThan(before);
      const complete = async (request: { messages: { role: string; content: unknown }[] }) => ({
        text: `Echo: ${String(request.messages.at(-1)?.content)}`,
        usage: { inputTokens: 300, outputTokens: 40 },
        model: 'gpt-4o-mini',
      });
      const outcome = await runAgentTests(
        {
          eventStore: server.adapters.eventStore,
          clock: systemClock,
          logger: silentLogger,
          pricing: { table: PRICES, defaultPrice: PRICES['gpt-4o-mini'] },
          llmRetryDelaysMs: [],
          searchKnowledge: async () => [],
          loadLlm: async () => ({ kind: 'openai', model: 'gpt-4o-mini', provider: { complete } as never }),
          builtinLlm: { complete } as never,
        },
        { runId, companyId: co.company.companyId },
        createFairSlots({ total: 2, perCompany: 2 }),
      );
      expect(outcome).toBe('finished');
      // The slow delivery answers every turn too: each of its answers is a charge already made.
      await expect.poll(() => llm.completionRequests.length, { timeout: 15_000 }).toBe(before + 3);
      await new Promise((r) => setTimeout(r, 1500));
      const run = await settled(co, co.agentId, runId);
      expect(run).toMatchObject({ status: 'finished', passed: 2, failed: 0 });
      expect((await answerCharges(co)).map((l) => l.deltaMicros)).toEqual([-380, -380, -380]);
    } finally {
      llm.delayMs = 0;
    }
  });

  it('given credits for one answer only, when the run answers, then it stops with credits_exhausted and the cases left stay pending', async () => {
    const co = await paidAgent('BrokeRuns', 'pricey');
    const { costMicros } = (await co.call('POST', `/api/agents/${co.agentId}/test-runs/estimate`, {})).json().estimate;
    const runId = (await co.call('POST', `/api/agents/${co.agentId}/test-runs`, { confirmedCostMicros: costMicros })).json().run.id as string;
    const run = await settled(co, co.agentId, runId);
    expect(run).toMatchObject({ status: 'stopped', stopped: { reason: 'credits_exhausted', message: expect.stringMatching(/ran out of credits/) } });
    expect(run.cases.map((c: any) => c.status)).toEqual(['passed', 'pending']);
    expect((await co.call('GET', '/api/credits')).json().credits.balanceMicros).toBe(0);
    expect(await answerCharges(co)).toHaveLength(1);
  });

  it('given the builtin provider, when a run is estimated and started, then it is free and needs no confirmation', async () => {
    const co = await signUp(server, 'FreeRuns', uniqueEmail('free-runs'));
    const agentId = (await co.call('POST', '/api/agents', { name: 'Ava', model: 'gpt-4o' })).json().agent.id as string;
    await co.call('POST', `/api/agents/${agentId}/test-cases`, shipping);
    expect((await co.call('POST', `/api/agents/${agentId}/test-runs/estimate`, {})).json().estimate).toEqual({ version: 1, cases: 1, messages: 1, costMicros: 0, provider: 'builtin', model: 'builtin' });
    const started = await co.call('POST', `/api/agents/${agentId}/test-runs`, {});
    expect(started.statusCode).toBe(202);
    const run = await settled(co, agentId, started.json().run.id);
    expect(run).toMatchObject({ status: 'finished', provider: 'builtin', estimatedCostMicros: 0 });
    expect(await answerCharges(co)).toEqual([]);
  });
});
