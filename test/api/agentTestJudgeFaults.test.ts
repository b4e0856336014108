import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, type Company } from '../support/api.js';
import { startFakeLlm, type FakeLlm } from '../support/fakeLlm.js';
import { startTestServer, uniqueEmail, type TestServer } from '../support/testServer.js';

/**
 * Attack: the judge's model hangs or answers garbage (docs/api/agents-and-llm.md#judge-criterion). The run still
 * finishes, the criterion reads "not judged" with why in plain words (never a pass), and the replay slot it held is
 * free for the next run.
 */

let server: TestServer;
let llm: FakeLlm;
const PRICES = { 'gpt-4o-mini': { inputMicrosPer1K: 1000, outputMicrosPer1K: 2000 } };
let judgeSays = 'Looks fine to me!';

beforeAll(async () => {
  const isJudge = (body: { messages?: { content: unknown }[] }) => String(body.messages?.[0]?.content).startsWith('You check a customer-support answer');
  llm = await startFakeLlm({ reply: (body) => (isJudge(body) ? judgeSays : 'A colleague will answer you.'), usage: { prompt_tokens: 100, completion_tokens: 10 } });
  // One replay slot in all: a run that kept its slot would stop every later run.
  server = await startTestServer({ ALLOW_PRIVATE_PLATFORM_URLS: 'true', LLM_PRICE_TABLE: JSON.stringify(PRICES), LLM_MAX_RETRIES: '0', LLM_TIMEOUT_MS: '400', WORKER_CONCURRENCY: '2' });
}, 30_000);
afterAll(async () => {
  await server?.close();
  await llm?.close();
});

const judged = { name: 'Person', turns: ['Can I talk to someone?'], expect: { contains: [{ kind: 'text', value: 'colleague' }], judge: 'Says that a person will answer' }, required: true };

async function runCases(co: Company, agentId: string) {
  const { costMicros } = (await co.call('POST', `/api/agents/${agentId}/test-runs/estimate`, {})).json().estimate;
  const started = await co.call('POST', `/api/agents/${agentId}/test-runs`, { confirmedCostMicros: costMicros });
  expect(started.statusCode).toBe(202);
  const id = started.json().run.id as string;
  await expect.poll(async () => (await co.call('GET', `/api/agents/${agentId}/test-runs/${id}`)).json().run.status, { timeout: 15_000 }).toBe('finished');
  return (await co.call('GET', `/api/agents/${agentId}/test-runs/${id}`)).json().run;
}

async function companyWithCase() {
  const co = await signUp(server, 'Judge faults', uniqueEmail('judge-faults'));
  expect((await co.call('PUT', '/api/llm-config', { provider: 'openai', baseUrl: llm.url, apiKey: 'sk-judge', model: 'gpt-4o-mini' })).statusCode).toBe(200);
  const agentId = (await co.call('POST', '/api/agents', { name: 'Ava', handoffMessage: 'Please hold on.' })).json().agent.id as string;
  expect((await co.call('POST', `/api/agents/${agentId}/test-cases`, judged)).statusCode).toBe(201);
  return { co, agentId };
}

describe('attack: the judge fails', () => {
  it('given a judge that answers garbage, then the run finishes and the criterion is not judged, saying its reply could not be read', async () => {
    judgeSays = 'Looks fine to me!';
    const { co, agentId } = await companyWithCase();
    const run = await runCases(co, agentId);
    expect(run.cases[0].status).toBe('not_judged');
    expect(run.cases[0].results).toEqual([
      { check: 'contains', expected: '"colleague"', passed: true },
      { check: 'judge', expected: judged.expect.judge, passed: false, verdict: 'not_judged', reason: 'The judge’s reply could not be read' },
    ]);
    judgeSays = '{"verdict": "maybe", "reason": "<script>alert(1)</script>"}';
    const second = await runCases(co, agentId);
    expect(second.cases[0].results[1]).toMatchObject({ verdict: 'not_judged', reason: 'The judge’s reply could not be read' });
  });

  it('given a model that hangs, then the run finishes within the LLM timeout: the case gets the handoff message, the criterion is not judged (timeout), and the next run gets the slot', async () => {
    const { co, agentId } = await companyWithCase();
    llm.delayMs = 60_000;
    try {
      const run = await runCases(co, agentId);
      expect(run.cases[0].answer).toEqual({ text: 'Please hold on.', handoff: true, documentIds: [] });
      expect(run.cases[0].results[1]).toEqual({ check: 'judge', expected: judged.expect.judge, passed: false, verdict: 'not_judged', reason: 'The language model failed (timeout)' });
      expect(run.cases[0].status).toBe('failed');
    } finally {
      llm.delayMs = 0;
    }
    judgeSays = '{"verdict": "pass", "reason": "It says a colleague will answer."}';
    const next = await runCases(co, agentId);
    expect(next.cases[0]).toMatchObject({ status: 'passed', answer: { text: 'A colleague will answer you.' } });
  });
});

describe('attack: a paid test run started twice at once with the same confirmation', () => {
  it('then two runs start, and each answer of each run is charged once: the ledger holds runs × turns test answers, each within its confirmed estimate', async () => {
    judgeSays = '{"verdict": "pass", "reason": "It says a colleague will answer."}';
    const { co, agentId } = await companyWithCase();
    const { costMicros } = (await co.call('POST', `/api/agents/${agentId}/test-runs/estimate`, {})).json().estimate;
    const started = await Promise.all([0, 1].map(() => co.call('POST', `/api/agents/${agentId}/test-runs`, { confirmedCostMicros: costMicros })));
    expect(started.map((r) => r.statusCode)).toEqual([202, 202]);
    const ids = started.map((r) => r.json().run.id as string);
    expect(new Set(ids).size).toBe(2);
    for (const id of ids) await expect.poll(async () => (await co.call('GET', `/api/agents/${agentId}/test-runs/${id}`)).json().run.status, { timeout: 15_000 }).toBe('finished');
    const ledger = (await co.call('GET', '/api/credits')).json().credits.ledger as { deltaMicros: number; reason: string }[];
    const answers = ledger.filter((l) => l.reason.startsWith('Test answer'));
    expect(answers).toHaveLength(2);
    for (const line of answers) expect(-line.deltaMicros).toBeLessThanOrEqual(costMicros);
    expect(ledger.filter((l) => l.reason.startsWith('Test judge'))).toHaveLength(2);
  });
});
