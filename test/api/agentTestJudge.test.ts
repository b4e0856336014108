import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/ports/logger.js';
import { systemClock } from '../../src/ports/clock.js';
import { judgeAnswer, NOT_JUDGED_BUILTIN } from '../../src/workers/replays/testJudge.js';
import { signUp, type Company } from '../support/api.js';
import { startFakeLlm, type FakeLlm } from '../support/fakeLlm.js';
import { startTestServer, uniqueEmail, type TestServer } from '../support/testServer.js';

/**
 * A test case's judge criterion (docs/api/agents-and-llm.md#test-cases-and-test-runs): checked by the company's
 * LLM, shown as a verdict with its reason, and charged like any answer, once however often its job is delivered.
 * The builtin provider cannot judge: the case reads "not judged", never passed.
 */

let server: TestServer;
let llm: FakeLlm;
const PRICES = { 'gpt-4o-mini': { inputMicrosPer1K: 1000, outputMicrosPer1K: 2000 } };
const VERDICT = '{"verdict": "fail", "reason": "It asks the customer to wait\\nwithout saying who answers."}';

beforeAll(async () => {
  // The judge gets its verdict; the case itself (answered by the company's model too) is handed to a person.
  const isJudge = (body: { messages?: { content: unknown }[] }) => String(body.messages?.[0]?.content).startsWith('You check a customer-support answer');
  llm = await startFakeLlm({
    reply: (body) => (isJudge(body) ? VERDICT : { content: null, toolCalls: [{ name: 'handoff_to_human', arguments: '{"reason":"a cheque"}' }] }),
    usage: { prompt_tokens: 300, completion_tokens: 40 },
  });
  server = await startTestServer({ ALLOW_PRIVATE_PLATFORM_URLS: 'true', LLM_PRICE_TABLE: JSON.stringify(PRICES), LLM_MAX_RETRIES: '0' });
}, 30_000);
afterAll(async () => {
  await server?.close();
  await llm?.close();
});

const judged = { name: 'Cheque', turns: ['Can I pay with a cheque?'], expect: { handoff: true, judge: 'Says that a person will answer' }, required: true };

async function runCases(co: Company, agentId: string) {
  const { costMicros } = (await co.call('POST', `/api/agents/${agentId}/test-runs/estimate`, {})).json().estimate;
  const started = await co.call('POST', `/api/agents/${agentId}/test-runs`, { confirmedCostMicros: costMicros });
  expect(started.statusCode).toBe(202);
  const id = started.json().run.id as string;
  await expect.poll(async () => (await co.call('GET', `/api/agents/${agentId}/test-runs/${id}`)).json().run.status, { timeout: 10_000 }).toBe('finished');
  return (await co.call('GET', `/api/agents/${agentId}/test-runs/${id}`)).json().run;
}

const judgeCharges = async (co: Company) =>
  (await co.call('GET', '/api/credits')).json().credits.ledger.filter((l: { reason: string }) => l.reason.startsWith('Test judge')) as { deltaMicros: number; reason: string }[];

describe('judge criterion', () => {
  it('the company’s model judges the answer: a verdict with its reason, charged once even when the job is delivered again', async () => {
    const co = await signUp(server, 'Judged', uniqueEmail('judged'));
    expect((await co.call('PUT', '/api/llm-config', { provider: 'openai', baseUrl: llm.url, apiKey: 'sk-judge', model: 'gpt-4o-mini' })).statusCode).toBe(200);
    const agentId = (await co.call('POST', '/api/agents', { name: 'Ava', handoffMessage: 'Please wait.' })).json().agent.id as string;
    const created = await co.call('POST', `/api/agents/${agentId}/test-cases`, judged);
    expect(created.statusCode).toBe(201);
    expect(created.json().testCase.expect).toEqual({ handoff: true, judge: 'Says that a person will answer' });
    const calls = llm.completionRequests.length;

    const run = await runCases(co, agentId);
    expect(run.cases[0]).toMatchObject({ status: 'failed', answer: { text: 'Please wait.', handoff: true } });
    expect(run.cases[0].results).toEqual([
      { check: 'handoff', expected: 'hands off', passed: true },
      { check: 'judge', expected: 'Says that a person will answer', passed: false, verdict: 'failed', reason: 'It asks the customer to wait without saying who answers.' },
    ]);
    // The case's answer, then the judge, who saw the customer's message, the answer and the criterion.
    expect(llm.completionRequests.length).toBe(calls + 2);
    const prompt = JSON.stringify(llm.completionRequests.at(-1)!.body);
    for (const part of ['Can I pay with a cheque?', 'Please wait.', 'Says that a person will answer']) expect(prompt).toContain(part);

    // 300 input tokens at 1 micro-dollar, 40 output tokens at 2.
    await expect.poll(async () => (await judgeCharges(co)).map((l) => l.deltaMicros), { timeout: 5000 }).toEqual([-380]);

    // The job delivered again after the charge (a crash before the case was recorded): the model is asked again, nothing is charged again.
    const again = await judgeAnswer(
      {
        eventStore: server.adapters.eventStore,
        clock: systemClock,
        logger: silentLogger,
        pricing: { table: PRICES, defaultPrice: PRICES['gpt-4o-mini'] },
        loadLlm: async () => ({ kind: 'openai', model: 'gpt-4o-mini', provider: { complete: async () => ({ text: VERDICT, usage: { inputTokens: 300, outputTokens: 40 }, model: 'gpt-4o-mini' }) } as never }),
      },
      { companyId: co.company.companyId, runId: run.id, caseId: run.cases[0].caseId, criterion: judged.expect.judge, turns: judged.turns, answer: { text: 'Please wait.', handoff: true } },
    );
    expect(again.verdict).toBe('failed');
    await new Promise((r) => setTimeout(r, 300));
    expect((await judgeCharges(co)).map((l) => l.deltaMicros)).toEqual([-380]);
  });

  it('on the builtin provider the case reads "not judged" and nothing is charged; a machine check that fails still fails it', async () => {
    const co = await signUp(server, 'Unjudged', uniqueEmail('unjudged'));
    const agentId = (await co.call('POST', '/api/agents', { name: 'Ava', handoffMessage: 'Please wait.' })).json().agent.id as string;
    await co.call('POST', `/api/agents/${agentId}/test-cases`, judged);
    await co.call('POST', `/api/agents/${agentId}/test-cases`, { ...judged, name: 'Answers', expect: { handoff: false, judge: 'Is polite' } });
    const run = await runCases(co, agentId);
    expect(run).toMatchObject({ passed: 1, failed: 1, requiredFailed: 1 });
    expect(run.cases.map((c: { name: string; status: string }) => [c.name, c.status])).toEqual([
      ['Cheque', 'not_judged'],
      ['Answers', 'failed'],
    ]);
    expect(run.cases[0].results[1]).toEqual({ check: 'judge', expected: 'Says that a person will answer', passed: false, verdict: 'not_judged', reason: NOT_JUDGED_BUILTIN });
    expect(await judgeCharges(co)).toEqual([]);
  });
});
