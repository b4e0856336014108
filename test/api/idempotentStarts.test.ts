import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idForKey, requestHashOf } from '../../src/commands/idempotentStart.js';
import { requestReplay } from '../../src/commands/replays/replays.js';
import { loadPricing } from '../../src/domain/credits/decider.js';
import { startReleaseCheckSchema } from '../../src/http/routes/agentReleases.schemas.js';
import { silentLogger } from '../../src/ports/logger.js';
import { signUp, type Company } from '../support/api.js';
import { startFakeLlm, type FakeLlm } from '../support/fakeLlm.js';
import { seedConversation } from '../support/replayFixtures.js';
import { startTestServer, uniqueEmail, type TestServer } from '../support/testServer.js';

/**
 * A paid start sent again under its `Idempotency-Key` (docs/api/README.md#idempotency-keys) finds the first run
 * instead of starting and charging a second: replays, test runs and release checks. The key names the run's
 * stream, appended with expected revision "no stream", so the guard holds on every event store.
 */

let server: TestServer;
let llm: FakeLlm;
const PRICES = { 'gpt-4o-mini': { inputMicrosPer1K: 1000, outputMicrosPer1K: 2000 } };

beforeAll(async () => {
  llm = await startFakeLlm({ reply: () => 'Answered by the draft.' });
  server = await startTestServer({ ALLOW_PRIVATE_PLATFORM_URLS: 'true', LLM_PRICE_TABLE: JSON.stringify(PRICES), LLM_MAX_RETRIES: '0' });
}, 30_000);
afterAll(async () => {
  await server?.close();
  await llm?.close();
});

const draft = { systemPrompt: 'You are the draft.', temperature: 0.1, useKnowledgeBase: false };
const shipping = { name: 'Shipping', turns: ['Do you ship to Norway?'], expect: { contains: [{ kind: 'text', value: 'draft' }] }, required: true };

/** A company on the fake paid model with an agent, one test case and two past conversations. */
async function paidCompany(name: string) {
  const co = await signUp(server, name, uniqueEmail(name));
  expect((await co.call('PUT', '/api/llm-config', { provider: 'openai', baseUrl: llm.url, apiKey: 'sk-keys', model: 'gpt-4o-mini' })).statusCode).toBe(200);
  const agentId = (await co.call('POST', '/api/agents', { name: 'Ava', useKnowledgeBase: false })).json().agent.id as string;
  expect((await co.call('POST', `/api/agents/${agentId}/test-cases`, shipping)).statusCode).toBe(201);
  const integration = (await co.call('POST', '/api/integrations', { name: 'Chat', connectorType: 'webchat', agentId })).json().integration;
  const seed = () => seedConversation(server.adapters.eventStore, co.company.companyId, [{ customer: ['Do you ship to Norway?'], answer: { agent: 'Yes.' } }], 'Ada', integration.id);
  const conversations = [(await seed()).conversationId, (await seed()).conversationId];
  return { ...co, agentId, conversations };
}

const post = (co: Company, url: string, payload: object, key?: string) =>
  server.app.inject({ method: 'POST', url, payload, headers: { authorization: `Bearer ${co.bearer}`, ...(key !== undefined ? { 'idempotency-key': key } : {}) } });

async function confirmedReplay(co: Awaited<ReturnType<typeof paidCompany>>) {
  const estimate = (await co.call('POST', '/api/replays/estimate', { draft, conversationIds: co.conversations })).json().estimate;
  return { draft, conversationIds: co.conversations, confirmedCostMicros: estimate.costMicros as number };
}

const replayIds = async (co: Company) => ((await co.call('GET', '/api/replays')).json().replays as { id: string }[]).map((r) => r.id);
const completionsSince = (n: number) => llm.completionRequests.length - n;

describe('Idempotency-Key on paid starts', () => {
  it('given a replay started under a key, when the same request comes again with the key, then it answers with the first replay (Idempotent-Replayed) and nothing more is answered or charged', async () => {
    const co = await paidCompany('KeyReplay');
    const body = await confirmedReplay(co);
    const calls = llm.completionRequests.length;
    const first = await post(co, '/api/replays', body, 'retry-7f3a');
    expect(first.statusCode).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const id = first.json().replay.id as string;
    await expect.poll(async () => (await co.call('GET', `/api/replays/${id}`)).json().replay.status, { timeout: 20_000, interval: 50 }).toBe('completed');

    const again = await post(co, '/api/replays', body, 'retry-7f3a');
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json().replay).toMatchObject({ id, status: 'completed' });
    expect(await replayIds(co)).toEqual([id]);
    expect(completionsSince(calls)).toBe(2);

    // Without a key, the same request is a new replay, as before.
    const unkeyed = await post(co, '/api/replays', body);
    expect(unkeyed.statusCode).toBe(201);
    expect(unkeyed.json().replay.id).not.toBe(id);
  });

  it('given five identical requests at once under one key, then one replay starts and all five answer with it', async () => {
    const co = await paidCompany('KeyRace');
    const body = await confirmedReplay(co);
    const answers = await Promise.all(Array.from({ length: 5 }, () => post(co, '/api/replays', body, 'race-1')));
    expect(answers.map((a) => a.statusCode)).toEqual([201, 201, 201, 201, 201]);
    const ids = new Set(answers.map((a) => a.json().replay.id as string));
    expect(ids.size).toBe(1);
    expect(answers.filter((a) => a.headers['idempotent-replayed'] === 'true')).toHaveLength(4);
    expect(await replayIds(co)).toEqual([...ids]);
  });

  it('given a key used for one replay, when it comes with another request, then 422 IDEMPOTENCY_KEY_REUSED and nothing starts; another company’s same key is its own', async () => {
    const co = await paidCompany('KeyReused');
    const body = await confirmedReplay(co);
    const first = await post(co, '/api/replays', body, 'k-1');
    expect(first.statusCode).toBe(201);
    const other = await post(co, '/api/replays', { ...body, conversationIds: [co.conversations[0]] }, 'k-1');
    expect(other.statusCode).toBe(422);
    expect(other.json().error).toEqual({ code: 'IDEMPOTENCY_KEY_REUSED', message: expect.stringContaining('different request') });
    expect(await replayIds(co)).toEqual([first.json().replay.id]);

    const neighbour = await paidCompany('KeyNeighbour');
    const theirs = await post(neighbour, '/api/replays', await confirmedReplay(neighbour), 'k-1');
    expect(theirs.statusCode).toBe(201);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(theirs.json().replay.id).not.toBe(first.json().replay.id);
    // The keys of the request's JSON in another order are the same request.
    const reordered = await post(co, '/api/replays', { confirmedCostMicros: body.confirmedCostMicros, conversationIds: body.conversationIds, draft: { useKnowledgeBase: false, temperature: 0.1, systemPrompt: draft.systemPrompt } }, 'k-1');
    expect(reordered.statusCode).toBe(201);
    expect(reordered.json().replay.id).toBe(first.json().replay.id);
  });

  it('given a malformed key (empty, over 255 characters, not visible ASCII), then 400 VALIDATION_ERROR and nothing starts', async () => {
    const co = await paidCompany('KeyMalformed');
    const body = await confirmedReplay(co);
    for (const key of ['', 'x'.repeat(256), 'two words', 'clé']) {
      const res = await post(co, '/api/replays', body, key);
      expect(res.statusCode, JSON.stringify(key)).toBe(400);
      expect(res.json().error).toEqual({ code: 'VALIDATION_ERROR', message: 'Idempotency-Key must be 1 to 255 visible ASCII characters' });
    }
    expect(await replayIds(co)).toEqual([]);
    const longest = await post(co, '/api/replays', body, `"${'k'.repeat(255)}"`);
    expect(longest.statusCode).toBe(201);
  });

  it('given a paid test run started under a key, when it is sent again, then the same run answers and its case is charged once', async () => {
    const co = await paidCompany('KeyTestRun');
    const estimate = (await co.call('POST', `/api/agents/${co.agentId}/test-runs/estimate`, {})).json().estimate;
    const body = { confirmedCostMicros: estimate.costMicros };
    const calls = llm.completionRequests.length;
    const [a, b] = await Promise.all([post(co, `/api/agents/${co.agentId}/test-runs`, body, 'run-1'), post(co, `/api/agents/${co.agentId}/test-runs`, body, 'run-1')]);
    expect([a.statusCode, b.statusCode]).toEqual([202, 202]);
    const runId = a.json().run.id as string;
    expect(b.json().run.id).toBe(runId);
    await expect.poll(async () => (await co.call('GET', `/api/agents/${co.agentId}/test-runs/${runId}`)).json().run.status, { timeout: 15_000, interval: 50 }).toBe('finished');
    const again = await post(co, `/api/agents/${co.agentId}/test-runs`, body, 'run-1');
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json().run).toMatchObject({ id: runId, status: 'finished' });
    expect(completionsSince(calls)).toBe(1);
    const charges = (await co.call('GET', '/api/credits')).json().credits.ledger.filter((l: { reason: string }) => l.reason.startsWith('Test answer'));
    expect(charges).toHaveLength(1);
  });

  it('given a release check started under a key, when it is sent again, then the same check (its one replay and suite) answers', async () => {
    const co = await paidCompany('KeyRelease');
    const version = (await co.call('POST', `/api/agents/${co.agentId}/versions`, { systemPrompt: 'Be brief.' })).json().version.version as number;
    const estimate = (await co.call('POST', `/api/agents/${co.agentId}/release-checks/estimate`, { version })).json().estimate;
    const body = { version, confirmedCostMicros: estimate.costMicros };
    const first = await post(co, `/api/agents/${co.agentId}/release-checks`, body, 'check-1');
    expect(first.statusCode).toBe(202);
    const checkId = first.json().check.id as string;
    const again = await post(co, `/api/agents/${co.agentId}/release-checks`, body, 'check-1');
    expect(again.statusCode).toBe(202);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json().check.id).toBe(checkId);
    expect(await replayIds(co)).toHaveLength(1);
    // The same key on a plain test run names another start: a run of its own.
    const run = await post(co, `/api/agents/${co.agentId}/test-runs`, { version, confirmedCostMicros: estimate.suite.costMicros }, 'check-1');
    expect(run.statusCode).toBe(202);
    expect(run.json().run.id).not.toBe(checkId);
  });
});

describe('the OpenAPI document', () => {
  it('names the Idempotency-Key header on each start that takes it, and the other headers still reach the routes', async () => {
    const doc = (await server.app.inject('/docs/json')).json();
    const routes = [
      ['/api/replays', 'post'],
      ['/api/agents/{id}/test-runs', 'post'],
      ['/api/agents/{id}/release-checks', 'post'],
      ['/api/conversations/{id}/messages', 'post'],
    ] as const;
    for (const [path, method] of routes) {
      const parameters = doc.paths[path][method].parameters as { in: string; name: string; required?: boolean }[];
      expect(parameters, path).toContainEqual(expect.objectContaining({ in: 'header', name: 'idempotency-key', required: false }));
    }
    // The bearer token is a header too: declaring one header keeps the others.
    const co = await paidCompany('KeyHeaders');
    expect((await post(co, '/api/replays', await confirmedReplay(co))).statusCode).toBe(201);
  });
});

describe('a release check cut between its replay and its suite', () => {
  it('given the replay a key named was started and the process died before the suite, when the check is sent again with the key, then it goes on with that replay: one replay, and the check names it', async () => {
    const co = await paidCompany('KeyCrash');
    const version = (await co.call('POST', `/api/agents/${co.agentId}/versions`, { systemPrompt: 'Be brief.' })).json().version.version as number;
    const estimate = (await co.call('POST', `/api/agents/${co.agentId}/release-checks/estimate`, { version })).json().estimate;
    const body = { version, confirmedCostMicros: estimate.costMicros };
    // What the first request did before it died: the check's replay, under the id the key gives it.
    const parsed = startReleaseCheckSchema.body.parse(body);
    const key = { key: 'crash-1', requestHash: requestHashOf({ route: '/api/agents/:id/release-checks', params: { id: co.agentId }, body: parsed }) };
    const { replayId } = await requestReplay(
      { eventStore: server.adapters.eventStore, clock: { now: () => new Date() }, logger: silentLogger, pricing: loadPricing(JSON.stringify(PRICES)) },
      { companyId: co.company.companyId, userId: co.user.id, draft: { basedOnAgentId: co.agentId, systemPrompt: 'Be brief.', model: 'gpt-4o-mini', temperature: 0.3, useKnowledgeBase: false, handoffMessage: 'x', answerThreshold: 'balanced', generalAnswers: false }, conversationIds: co.conversations, confirmedCostMicros: estimate.costMicros - estimate.suite.costMicros, idempotencyKey: key, keyPart: 'replay' },
    );
    expect(replayId).toBe(idForKey(co.company.companyId, 'release-check', 'crash-1', 'replay'));

    const check = await post(co, `/api/agents/${co.agentId}/release-checks`, body, 'crash-1');
    expect(check.statusCode).toBe(202);
    expect(check.headers['idempotent-replayed']).toBeUndefined();
    expect(check.json().check.replay).toMatchObject({ id: replayId });
    expect(await replayIds(co)).toEqual([replayId]);
  });
});

describe('Idempotency-Key on operator messages', () => {
  const send = (co: Company, conversationId: string, text: string, key?: string) => post(co, `/api/conversations/${conversationId}/messages`, { text }, key);
  /** The seeded conversations, once the read models show them (the route finds a conversation there). */
  async function seeded(name: string) {
    const co = await paidCompany(name);
    for (const id of co.conversations) await expect.poll(async () => (await co.call('GET', `/api/conversations/${id}`)).statusCode, { timeout: 15_000, interval: 50 }).toBe(200);
    return co;
  }
  const operatorTexts = async (co: Company, conversationId: string) =>
    ((await co.call('GET', `/api/conversations/${conversationId}`)).json().messages as { author: string; text: string }[]).filter((m) => m.author === 'operator').map((m) => m.text);

  it('given an operator message sent under a key, when it is sent again (and three times at once), then the customer gets it once and every answer names that message', async () => {
    const co = await seeded('KeyOperator');
    const conversationId = co.conversations[0]!;
    const first = await send(co, conversationId, 'I have refunded your order.', 'msg-1');
    expect(first.statusCode).toBe(202);
    const id = first.json().message.id as string;
    const again = await send(co, conversationId, 'I have refunded your order.', 'msg-1');
    expect(again.statusCode).toBe(202);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json().message.id).toBe(id);
    const racing = await Promise.all([1, 2, 3].map(() => send(co, conversationId, 'Anything else?', 'msg-2')));
    expect(racing.map((r) => r.statusCode)).toEqual([202, 202, 202]);
    expect(new Set(racing.map((r) => r.json().message.id)).size).toBe(1);
    expect(await operatorTexts(co, conversationId)).toEqual(['I have refunded your order.', 'Anything else?']);
    const sends = (await server.adapters.eventStore.readStream(`conversation-${conversationId}`)).filter((e) => e.type === 'OperatorMessageSent');
    expect(sends).toHaveLength(2);
  });

  it('given a key used for one message, when it comes with another text, then 422 IDEMPOTENCY_KEY_REUSED and nothing is sent; the same key in another conversation is another message', async () => {
    const co = await seeded('KeyOperatorReused');
    const [one, two] = co.conversations as [string, string];
    expect((await send(co, one, 'First answer.', 'k')).statusCode).toBe(202);
    const other = await send(co, one, 'Second answer.', 'k');
    expect(other.statusCode).toBe(422);
    expect(other.json().error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(await operatorTexts(co, one)).toEqual(['First answer.']);
    const elsewhere = await send(co, two, 'Second answer.', 'k');
    expect(elsewhere.statusCode).toBe(202);
    expect(elsewhere.headers['idempotent-replayed']).toBeUndefined();
    expect(await operatorTexts(co, two)).toEqual(['Second answer.']);
    expect((await send(co, two, 'Bad key.', 'two words')).statusCode).toBe(400);
  });
});
