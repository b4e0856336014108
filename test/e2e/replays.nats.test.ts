import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type ChatCompletionBody, type FakeLlm } from '../support/fakeLlm.js';
import { startNatsServer } from '../support/natsServer.js';
import { seedConversation } from '../support/replayFixtures.js';
import { startTestInstances, type TestInstances } from '../support/testServer.js';

/**
 * Replay evaluation with two instances on NATS JetStream sharing one store: both run the replay reactor (its
 * jobs are deduplicated by JetStream) and both compete for the jobs, yet every past turn is answered by the
 * draft once, recorded once and charged once; a cancel sent to one instance stops the jobs the other runs.
 */
let nats: Awaited<ReturnType<typeof startNatsServer>>;
let llm: FakeLlm;
let slow: FakeLlm;
let instances: TestInstances;

beforeAll(async () => {
  nats = await startNatsServer();
  llm = await startFakeLlm({ reply: (body) => `Draft: ${lastUser(body)}`, delayMs: 20 });
  slow = await startFakeLlm({ reply: (body) => `Slow: ${lastUser(body)}`, delayMs: 400 });
  instances = await startTestInstances(2, {
    LOG_LEVEL: 'warn',
    NATS_URL: nats.url,
    ALLOW_PRIVATE_PLATFORM_URLS: 'true',
    AUTH_RATE_LIMIT_PER_MINUTE: '1000',
    LLM_PRICE_TABLE: JSON.stringify({ 'gpt-4o-mini': { inputMicrosPer1K: 1000, outputMicrosPer1K: 2000 } }),
  });
}, 60_000);

afterAll(async () => {
  await instances?.close();
  await nats?.stop();
  await Promise.all([llm?.close(), slow?.close()]);
});

const lastUser = (body: ChatCompletionBody) => String(body.messages?.filter((m) => m.role === 'user').at(-1)?.content ?? '');
const draft = { systemPrompt: 'You are the NATS draft.', temperature: 0.1, useKnowledgeBase: false, model: 'gpt-4o-mini' };

async function call(base: string, method: string, path: string, body?: unknown, token?: string) {
  const res = await fetch(base + path, {
    method,
    headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, json: await res.json() };
}

async function company(name: string, llmUrl: string) {
  const [a] = instances.bases as [string];
  const email = `${name.toLowerCase()}-${Date.now()}@example.com`;
  const registered = await call(a, 'POST', '/api/auth/register', { email, password: 'correct horse', companyName: name });
  expect(registered.status).toBe(201);
  const token = (await call(a, 'POST', '/api/auth/login', { email, password: 'correct horse' })).json.session.access_token as string;
  expect((await call(a, 'PUT', '/api/llm-config', { provider: 'openai', baseUrl: llmUrl, apiKey: 'sk-replay-nats', model: 'gpt-4o-mini' }, token)).status).toBe(200);
  return { token, companyId: registered.json.company.companyId as string };
}

async function startReplay(base: string, token: string, conversationIds: string[]) {
  const estimate = await call(base, 'POST', '/api/replays/estimate', { draft, conversationIds }, token);
  expect(estimate.status).toBe(200);
  const created = await call(base, 'POST', '/api/replays', { draft, conversationIds, confirmedCostMicros: estimate.json.estimate.costMicros }, token);
  expect(created.status).toBe(201);
  return created.json.replay.id as string;
}

describe('replay evaluation over NATS JetStream with two instances', () => {
  it('answers, records and charges every turn once, whichever instance runs its job', async () => {
    const [a, b] = instances.bases as [string, string];
    const { token, companyId } = await company('ReplayNats', llm.url);
    const store = instances.servers[0]!.adapters.eventStore;
    const conversations = [];
    for (let c = 0; c < 6; c++) {
      conversations.push(
        await seedConversation(store, companyId, [{ customer: [`c${c} first`], answer: { agent: 'Hello' } }, { customer: [`c${c} second`], answer: { operator: 'Hi' } }, { customer: [`c${c} third`] }]),
      );
    }
    const id = await startReplay(a, token, conversations.map((c) => c.conversationId));
    // Read through the other instance: the read model is shared, progress comes from whichever ran the jobs.
    await expect.poll(async () => (await call(b, 'GET', `/api/replays/${id}`, undefined, token)).json.replay.status, { timeout: 30_000, interval: 100 }).toBe('completed');
    const result = (await call(b, 'GET', `/api/replays/${id}?limit=200`, undefined, token)).json;
    expect(result.replay.progress).toEqual({ done: 18, total: 18 });
    expect(result.answers).toHaveLength(18);
    expect(new Set(result.answers.map((x: { customerText: string }) => x.customerText)).size).toBe(18);
    for (const answer of result.answers) expect(answer.draft).toMatchObject({ status: 'answered', text: `Draft: ${answer.customerText}` });

    // Each turn asked the model once, and was recorded and charged once, although both instances ran the reactor.
    const asked = llm.completionRequests.map((r) => lastUser(r.body as ChatCompletionBody)).filter((t) => /^c\d (first|second|third)$/.test(t));
    expect(asked.sort()).toEqual(result.answers.map((x: { customerText: string }) => x.customerText).sort());
    const recorded = (await store.readStream(`replay-${id}`)).filter((e) => e.type === 'ReplayAnswerRecorded');
    expect(recorded).toHaveLength(18);
    const charges = (await store.readStream(`credits-${companyId}`)).filter((e) => e.type === 'CreditsConsumed' && (e.data as { replayId?: string }).replayId === id);
    expect(charges).toHaveLength(18);
  }, 60_000);

  it('a cancel sent to one instance stops the jobs the other runs', async () => {
    const [a, b] = instances.bases as [string, string];
    const { token, companyId } = await company('ReplayNatsCancel', slow.url);
    const store = instances.servers[0]!.adapters.eventStore;
    const conversations = [];
    for (let c = 0; c < 4; c++) {
      conversations.push(await seedConversation(store, companyId, Array.from({ length: 10 }, (_, t) => ({ customer: [`k${c} turn ${t}`], answer: { agent: `answer ${t}` } }))));
    }
    const id = await startReplay(a, token, conversations.map((c) => c.conversationId));
    await expect.poll(async () => (await call(a, 'GET', `/api/replays/${id}`, undefined, token)).json.replay.progress.done, { timeout: 20_000, interval: 50 }).toBeGreaterThan(0);
    expect((await call(b, 'POST', `/api/replays/${id}/cancel`, undefined, token)).status).toBe(200);
    await expect.poll(async () => (await call(a, 'GET', `/api/replays/${id}`, undefined, token)).json.replay.status, { timeout: 10_000, interval: 50 }).toBe('cancelled');
    // Nothing is asked of the model once the in-flight calls (aborted) are gone.
    await new Promise((r) => setTimeout(r, 1500));
    const askedAfter = slow.completionRequests.length;
    await new Promise((r) => setTimeout(r, 1500));
    expect(slow.completionRequests.length).toBe(askedAfter);
    const done = (await call(a, 'GET', `/api/replays/${id}`, undefined, token)).json.replay.progress.done;
    expect(done).toBeLessThan(40);
  }, 60_000);
});
