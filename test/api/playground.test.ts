import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { teammateBearer } from '../support/agentFixtures.js';
import { PLAYGROUND_LIMITS } from '../../src/domain/playground/events.js';
import { signUp } from '../support/api.js';
import { startFakeLlm, type FakeLlm } from '../support/fakeLlm.js';
import { startFakePlatform, type FakePlatform } from '../support/fakePlatform.js';
import { startTestServer, type TestServer } from '../support/testServer.js';

/**
 * The agent playground: a teammate chats with a saved agent from the dashboard, with no platform and no customer.
 * Answers come from the same answer generation as a customer's reply, show their sources and tokens, and are
 * charged like replies; a playground is not a conversation.
 */

const LLM_KEY = 'sk-test-playground';
const PLATFORM_TOKEN = 'platform-token-playground';
const LLM_TIMEOUT_MS = 3000;

let server: TestServer;
let base: string;
let llm: FakeLlm;
let platform: FakePlatform;

beforeAll(async () => {
  llm = await startFakeLlm({ apiKey: LLM_KEY, usage: { prompt_tokens: 300, completion_tokens: 40 } });
  platform = await startFakePlatform({ token: PLATFORM_TOKEN });
  server = await startTestServer({
    ALLOW_PRIVATE_PLATFORM_URLS: 'true',
    LLM_MAX_RETRIES: '0',
    LLM_TIMEOUT_MS: String(LLM_TIMEOUT_MS),
    LLM_PRICE_TABLE: JSON.stringify({ 'fake-model': { inputMicrosPer1K: 1000, outputMicrosPer1K: 2000 }, 'pricey-model': { inputMicrosPer1K: 60_000_000, outputMicrosPer1K: 0 } }),
  });
  base = await server.listen(0, '127.0.0.1');
});
afterAll(async () => {
  await server?.close();
  await llm?.close();
  await platform?.close();
});
afterEach(() => {
  llm.reset();
  llm.delayMs = 0;
  llm.usage = { prompt_tokens: 300, completion_tokens: 40 };
});

type Company = Awaited<ReturnType<typeof company>>;

/** A company with an agent, a knowledge-base document and (to prove nothing reaches it) a platform integration using the agent. */
async function company(options: { provider?: 'builtin' | 'openai'; model?: string } = {}) {
  const co = await signUp(server, 'Playground Inc');
  const agent = (await co.call('POST', '/api/agents', { name: 'Ava', systemPrompt: 'You are Ava.', handoffMessage: 'A colleague will reply soon.' })).json().agent;
  const doc = (await co.call('POST', '/api/knowledge-base/documents', { title: 'Shipping', content: 'We ship to Norway, Sweden and Denmark within 5 working days.' })).json().document;
  if (options.provider === 'openai') {
    expect((await co.call('PUT', '/api/llm-config', { provider: 'openai', baseUrl: llm.url, apiKey: LLM_KEY, model: options.model ?? 'fake-model' })).statusCode).toBe(200);
  }
  const integration = await co.call('POST', '/api/integrations', {
    name: 'Platform',
    connectorType: 'msgplatform',
    apiUrl: platform.url,
    apiToken: PLATFORM_TOKEN,
    webhookSecret: 'whsec_playground_0123456789',
    agentId: agent.id,
  });
  expect(integration.statusCode).toBe(201);
  return { ...co, agentId: agent.id as string, documentId: doc.id as string };
}

async function startSession(co: Company) {
  const res = await co.call('POST', `/api/agents/${co.agentId}/playground`);
  expect(res.statusCode).toBe(201);
  return res.json().session.id as string;
}

const ask = (co: Company, sessionId: string, text: string) => co.call('POST', `/api/playground/${sessionId}/messages`, { text });

/** Every stored event of the company, by stream (the whole log of this test server is small). */
async function streamsOf(companyId: string) {
  const events = await server.adapters.eventStore.readAll();
  return new Set(events.filter((e) => e.metadata.companyId === companyId).map((e) => e.stream.replace(/-[0-9a-f-]{36}$/, '-<id>')));
}

const balanceOf = async (co: Company) => (await co.call('GET', '/api/credits')).json().credits.balanceMicros as number;

describe('agent playground', () => {
  it('builtin provider: a session starts empty, a question is answered from the knowledge base with its sources, and nothing reaches a customer or the analytics', async () => {
    const co = await company();
    const started = await co.call('POST', `/api/agents/${co.agentId}/playground`);
    expect(started.statusCode).toBe(201);
    expect(started.json()).toEqual({
      session: { id: expect.any(String), agentId: co.agentId, startedAt: expect.any(String), questionCount: 0, questionLimit: PLAYGROUND_LIMITS.questions, actions: 'mocked' },
      turns: [],
    });
    const sessionId = started.json().session.id;

    const res = await ask(co, sessionId, 'Do you ship to Norway?');
    expect(res.statusCode).toBe(200);
    const { turn } = res.json();
    expect(turn).toMatchObject({
      question: { text: 'Do you ship to Norway?' },
      answer: {
        text: expect.stringContaining('We ship to Norway'),
        inputTokens: 0,
        outputTokens: 0,
        handoff: false,
        provenance: { sources: [{ documentId: co.documentId, title: 'Shipping', chunkIndex: 0, score: expect.any(Number) }], latencyMs: expect.any(Number), costMicros: 0, usageEstimated: false },
      },
      failure: null,
    });
    const session = (await co.call('GET', `/api/playground/${sessionId}`)).json();
    expect(session.session.questionCount).toBe(1);
    expect(session.turns).toEqual([turn]);

    // Not a conversation: no conversation stream, nothing in the inbox, nothing sent, builtin answers are free.
    expect([...(await streamsOf(co.company.companyId))].filter((s) => s.startsWith('conversation'))).toEqual([]);
    expect(await streamsOf(co.company.companyId)).toContain('playground-<id>');
    expect((await co.call('GET', '/api/conversations')).json().conversations).toEqual([]);
    expect(platform.messages()).toEqual([]);
    expect(await balanceOf(co)).toBe(5_000_000);
  });

  it('OpenAI-compatible provider: the answer carries the model and reported tokens, is charged once to the credits, and the next question sees the history', async () => {
    const co = await company({ provider: 'openai' });
    const sessionId = await startSession(co);
    const first = await ask(co, sessionId, 'Do you ship to Norway?');
    expect(first.statusCode).toBe(200);
    expect(first.json().turn.answer).toMatchObject({
      text: 'Echo: Do you ship to Norway?',
      model: 'fake-model',
      inputTokens: 300,
      outputTokens: 40,
      provenance: { sources: [expect.objectContaining({ documentId: co.documentId })], costMicros: 380, usageEstimated: false },
    });
    // The agent's saved configuration and the knowledge base went into the call.
    const body = llm.completionRequests.at(-1)!.body as { model: string; messages: { role: string; content: string }[] };
    expect(body.model).toBe('fake-model');
    expect(body.messages[0]).toMatchObject({ role: 'system', content: expect.stringContaining('You are Ava.') });

    // Charged like a reply: 300 × 1000/1K + 40 × 2000/1K = 380 micros, once, with no conversation.
    await expect.poll(() => balanceOf(co), { timeout: 5000 }).toBe(5_000_000 - 380);
    const ledger = (await co.call('GET', '/api/credits')).json().credits.ledger;
    expect(ledger[0]).toEqual({ at: expect.any(String), deltaMicros: -380, reason: 'Playground answer (fake-model, 300+40 tokens)' });

    const second = await ask(co, sessionId, 'And to Sweden?');
    expect(second.statusCode).toBe(200);
    const prompt = (llm.completionRequests.at(-1)!.body as { messages: { role: string; content: string }[] }).messages.filter((m) => m.role !== 'system');
    expect(prompt).toEqual([
      { role: 'user', content: 'Do you ship to Norway?' },
      { role: 'assistant', content: 'Echo: Do you ship to Norway?' },
      { role: 'user', content: 'And to Sweden?' },
    ]);
    await expect.poll(() => balanceOf(co), { timeout: 5000 }).toBe(5_000_000 - 760);
    expect(platform.messages()).toEqual([]);
    expect([...(await streamsOf(co.company.companyId))].filter((s) => s.startsWith('conversation'))).toEqual([]);
  });

  it('two questions at once in one session are both answered and both recorded', async () => {
    const co = await company({ provider: 'openai' });
    const sessionId = await startSession(co);
    llm.delayMs = 200; // both are in flight together
    const [a, b] = await Promise.all([
      fetch(`${base}/api/playground/${sessionId}/messages`, { method: 'POST', headers: { authorization: `Bearer ${co.bearer}`, 'content-type': 'application/json' }, body: JSON.stringify({ text: 'First?' }) }),
      fetch(`${base}/api/playground/${sessionId}/messages`, { method: 'POST', headers: { authorization: `Bearer ${co.bearer}`, 'content-type': 'application/json' }, body: JSON.stringify({ text: 'Second?' }) }),
    ]);
    expect([a.status, b.status]).toEqual([200, 200]);
    const answers = [(await a.json()).turn.answer.text, (await b.json()).turn.answer.text].sort();
    expect(answers).toEqual(['Echo: First?', 'Echo: Second?']);
    const session = (await co.call('GET', `/api/playground/${sessionId}`)).json();
    expect(session.session.questionCount).toBe(2);
    expect(session.turns.map((t: { answer: { text: string } | null }) => t.answer?.text).sort()).toEqual(['Echo: First?', 'Echo: Second?']);
    await expect.poll(() => balanceOf(co), { timeout: 5000 }).toBe(5_000_000 - 760);
  });

  it('takes the largest allowed question; refuses a longer one and malformed bodies with VALIDATION_ERROR, recording nothing', async () => {
    const co = await company();
    const sessionId = await startSession(co);
    const largest = 'x'.repeat(PLAYGROUND_LIMITS.text);
    const ok = await ask(co, sessionId, largest);
    expect(ok.statusCode).toBe(200);
    expect(ok.json().turn.question.text).toHaveLength(PLAYGROUND_LIMITS.text);

    for (const payload of [{ text: largest + 'x' }, { text: '   ' }, {}, { text: 5 }, { text: 'hi', extra: true }]) {
      const res = await co.call('POST', `/api/playground/${sessionId}/messages`, payload);
      expect(res.statusCode, JSON.stringify(payload).slice(0, 40)).toBe(400);
      expect(res.json().error.code).toBe('VALIDATION_ERROR');
    }
    const notJson = await server.app.inject({
      method: 'POST',
      url: `/api/playground/${sessionId}/messages`,
      headers: { authorization: `Bearer ${co.bearer}`, 'content-type': 'application/json' },
      payload: '{"text": "unterminated',
    });
    expect(notJson.statusCode).toBe(400);
    expect(notJson.json().error.code).toBe('VALIDATION_ERROR');
    expect((await co.call('GET', `/api/playground/${sessionId}`)).json().session.questionCount).toBe(1);
  });

  it("another company's agent and sessions are not found, whichever way they are asked for", async () => {
    const co = await company();
    const sessionId = await startSession(co);
    await ask(co, sessionId, 'Do you ship to Norway?');
    const other = await company();
    for (const res of [
      await other.call('GET', `/api/playground/${sessionId}`),
      await other.call('POST', `/api/playground/${sessionId}/messages`, { text: 'Hi' }),
      await other.call('POST', `/api/agents/${co.agentId}/playground`),
      await other.call('GET', '/api/playground/not-a-uuid'),
      await other.call('POST', '/api/agents/not-a-uuid/playground'),
    ]) {
      expect(res.statusCode).toBe(404);
      expect(res.json().error.code).toBe('NOT_FOUND');
    }
    expect((await co.call('GET', `/api/playground/${sessionId}`)).json().session.questionCount).toBe(1);
    const anonymous = await server.app.inject({ method: 'GET', url: `/api/playground/${sessionId}` });
    expect(anonymous.statusCode).toBe(401);
  });

  it('a hung model: the request ends with LLM_ERROR at the LLM timeout and the failure is recorded in the session', async () => {
    const co = await company({ provider: 'openai' });
    const sessionId = await startSession(co);
    llm.delayMs = 60_000;
    const startedAt = Date.now();
    const res = await ask(co, sessionId, 'Are you there?');
    const took = Date.now() - startedAt;
    expect(res.statusCode).toBe(502);
    expect(res.json().error).toEqual({ code: 'LLM_ERROR', message: expect.stringMatching(/timeout/) });
    expect(took).toBeGreaterThanOrEqual(LLM_TIMEOUT_MS - 100);
    expect(took).toBeLessThan(LLM_TIMEOUT_MS + 3000);
    const [turn] = (await co.call('GET', `/api/playground/${sessionId}`)).json().turns;
    expect(turn).toMatchObject({ question: { text: 'Are you there?' }, answer: null, failure: { reason: expect.stringMatching(/timeout/) } });
    expect(await balanceOf(co)).toBe(5_000_000);
  });

  it("beyond the company's share of playground calls: 429 with Retry-After, nothing recorded; other companies are not held up", async () => {
    const co = await company({ provider: 'openai' });
    const sessionId = await startSession(co);
    llm.delayMs = 60_000;
    const post = (text: string, bearer = co.bearer, session = sessionId) =>
      fetch(`${base}/api/playground/${session}/messages`, { method: 'POST', headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' }, body: JSON.stringify({ text }) });
    const hung = [post('one'), post('two')];
    await expect.poll(() => llm.completionRequests.length, { timeout: 3000 }).toBe(2);
    const third = await post('three');
    expect(third.status).toBe(429);
    expect(third.headers.get('retry-after')).toMatch(/^\d+$/);
    expect((await third.json()).error.code).toBe('RATE_LIMITED');

    // Another company still gets its answer meanwhile.
    const other = await company();
    const otherSession = await startSession(other);
    const otherRes = await post('Do you ship to Norway?', other.bearer, otherSession);
    expect(otherRes.status).toBe(200);

    expect((await Promise.all(hung)).map((r) => r.status)).toEqual([502, 502]);
    expect((await co.call('GET', `/api/playground/${sessionId}`)).json().session.questionCount).toBe(2);
  });

  it('the share is configuration: with PLAYGROUND_COMPANY_CONCURRENCY=1 a second question while one waits for the model gets 429', async () => {
    const narrow = await startTestServer({ ALLOW_PRIVATE_PLATFORM_URLS: 'true', LLM_MAX_RETRIES: '0', PLAYGROUND_COMPANY_CONCURRENCY: '1' });
    const narrowBase = await narrow.listen(0, '127.0.0.1');
    const controller = new AbortController();
    try {
      const co = await signUp(narrow, 'Narrow Inc');
      const agent = (await co.call('POST', '/api/agents', { name: 'Ava', handoffMessage: 'Soon.' })).json().agent;
      expect((await co.call('PUT', '/api/llm-config', { provider: 'openai', baseUrl: llm.url, apiKey: LLM_KEY, model: 'fake-model' })).statusCode).toBe(200);
      const sessionId = (await co.call('POST', `/api/agents/${agent.id}/playground`)).json().session.id as string;
      llm.delayMs = 60_000;
      const post = (text: string, signal?: AbortSignal) =>
        fetch(`${narrowBase}/api/playground/${sessionId}/messages`, {
          method: 'POST',
          headers: { authorization: `Bearer ${co.bearer}`, 'content-type': 'application/json' },
          body: JSON.stringify({ text }),
          ...(signal ? { signal } : {}),
        });
      const waiting = post('one', controller.signal).catch(() => null);
      await expect.poll(() => llm.completionRequests.length, { timeout: 3000 }).toBe(1);
      const second = await post('two');
      expect(second.status).toBe(429);
      expect((await second.json()).error.code).toBe('RATE_LIMITED');
      controller.abort();
      await waiting;
    } finally {
      controller.abort();
      await narrow.close();
    }
  });

  it('a teammate who disconnects cancels the model call; the session records why there is no answer', async () => {
    const co = await company({ provider: 'openai' });
    const sessionId = await startSession(co);
    llm.delayMs = 60_000;
    const controller = new AbortController();
    const pending = fetch(`${base}/api/playground/${sessionId}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${co.bearer}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'Never mind' }),
      signal: controller.signal,
    }).catch((err: unknown) => err);
    await expect.poll(() => llm.completionRequests.length, { timeout: 3000 }).toBe(1);
    const abortedAt = Date.now();
    controller.abort();
    await pending;
    await expect
      .poll(async () => (await co.call('GET', `/api/playground/${sessionId}`)).json().turns[0].failure?.reason ?? null, { timeout: LLM_TIMEOUT_MS - 500, interval: 50 })
      .toMatch(/left before the answer/);
    expect(Date.now() - abortedAt).toBeLessThan(LLM_TIMEOUT_MS);
    // The call was sent and is billed by the provider without a usage report: charged on the prompt's estimate.
    const charges = async () =>
      (await server.adapters.eventStore.readStream(`credits-${co.company.companyId}`)).filter((e) => e.type === 'CreditsConsumed').map((e) => e.data as Record<string, any>);
    await expect.poll(charges, { timeout: 5000 }).toHaveLength(1);
    expect((await charges())[0]).toMatchObject({ playgroundSessionId: sessionId, conversationId: '', outputTokens: 0 });
    expect((await charges())[0]!.inputTokens).toBeGreaterThan(0);
  });

  it('out of credits with a paid provider: 402 CREDITS_EXHAUSTED, no model call; the builtin provider still answers', async () => {
    const co = await company({ provider: 'openai', model: 'pricey-model' });
    const sessionId = await startSession(co);
    expect((await ask(co, sessionId, 'Spend it all')).statusCode).toBe(200);
    await expect.poll(() => balanceOf(co), { timeout: 5000 }).toBe(0);
    const calls = llm.completionRequests.length;
    const refused = await ask(co, sessionId, 'Once more?');
    expect(refused.statusCode).toBe(402);
    expect(refused.json().error).toEqual({ code: 'CREDITS_EXHAUSTED', message: expect.stringMatching(/out of credits/) });
    expect(llm.completionRequests.length).toBe(calls);
    expect((await co.call('GET', `/api/playground/${sessionId}`)).json().session.questionCount).toBe(1);

    expect((await co.call('PUT', '/api/llm-config', { provider: 'builtin' })).statusCode).toBe(200);
    expect((await ask(co, sessionId, 'Do you ship to Norway?')).statusCode).toBe(200);
  });

  it('any teammate role may use it: an agent-role teammate starts a session and asks', async () => {
    const co = await company();
    const bearer = await teammateBearer(server, co, 'agent', 'Agent Role');
    const started = await co.call('POST', `/api/agents/${co.agentId}/playground`, undefined, bearer);
    expect(started.statusCode).toBe(201);
    const res = await co.call('POST', `/api/playground/${started.json().session.id}/messages`, { text: 'Do you ship to Norway?' }, bearer);
    expect(res.statusCode).toBe(200);
    expect(res.json().turn.answer.provenance.sources).toHaveLength(1);
    const listed = await co.call('GET', `/api/playground?agentId=${co.agentId}`, undefined, bearer);
    expect(listed.statusCode).toBe(200);
    expect(listed.json().sessions.map((x: { id: string }) => x.id)).toContain(started.json().session.id);
  });

  it('is documented in the OpenAPI document', async () => {
    const doc = (await server.app.inject({ method: 'GET', url: '/docs/json' })).json();
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/agents/{id}/playground', '/api/playground', '/api/playground/{sessionId}', '/api/playground/{sessionId}/messages']));
  });
});

describe('finding a playground session again (GET /api/playground)', () => {
  type Listed = { id: string };
  const ids = (res: { json(): { sessions: Listed[] } }) => res.json().sessions.map((x) => x.id);
  const pause = () => new Promise((r) => setTimeout(r, 5)); // distinct timestamps, so the order is the test's

  it("lists the caller's company's sessions only, newest activity first, one agent's on request, in keyset pages", async () => {
    const co = await company();
    const bo = (await co.call('POST', '/api/agents', { name: 'Bo', handoffMessage: 'Soon.' })).json().agent.id as string;
    const s1 = await startSession(co);
    await pause();
    const s2 = await startSession(co);
    await pause();
    const s3 = (await co.call('POST', `/api/agents/${bo}/playground`)).json().session.id as string;
    const other = await company();
    const otherSession = await startSession(other);

    // Started sessions are listed at once (the start waits for the read model), newest first.
    expect(ids(await co.call('GET', '/api/playground'))).toEqual([s3, s2, s1]);
    expect(ids(await other.call('GET', '/api/playground'))).toEqual([otherSession]);

    // A question brings the oldest session to the top.
    await pause();
    expect((await ask(co, s1, 'Do you ship to Norway?')).statusCode).toBe(200);
    await expect.poll(async () => ids(await co.call('GET', '/api/playground')), { timeout: 5000 }).toEqual([s1, s3, s2]);
    const [top] = (await co.call('GET', '/api/playground')).json().sessions;
    expect(top).toEqual({
      id: s1,
      agentId: co.agentId,
      agentName: 'Ava',
      startedBy: `user:${co.user.id}`,
      startedAt: expect.any(String),
      questionCount: 1,
      questionLimit: PLAYGROUND_LIMITS.questions,
      firstQuestion: 'Do you ship to Norway?',
      lastQuestionAt: expect.any(String),
      lastActivityAt: expect.any(String),
    });
    expect(top.lastActivityAt >= top.lastQuestionAt && top.lastQuestionAt > top.startedAt).toBe(true);

    expect(ids(await co.call('GET', `/api/playground?agentId=${co.agentId}`))).toEqual([s1, s2]);
    expect(ids(await co.call('GET', `/api/playground?agentId=${bo}`))).toEqual([s3]);
    // Another company's agent: nothing of theirs, and no sign it exists.
    expect(ids(await other.call('GET', `/api/playground?agentId=${co.agentId}`))).toEqual([]);

    const first = await co.call('GET', '/api/playground?limit=2');
    expect(ids(first)).toEqual([s1, s3]);
    const cursor = first.json().nextCursor as string;
    expect(cursor).toEqual(expect.any(String));
    const second = await co.call('GET', `/api/playground?limit=2&cursor=${encodeURIComponent(cursor)}`);
    expect(ids(second)).toEqual([s2]);
    expect(second.json().nextCursor).toBeNull();
    // The cursor belongs to this company's query: another company cannot page through it.
    const foreign = await other.call('GET', `/api/playground?limit=2&cursor=${encodeURIComponent(cursor)}`);
    expect(foreign.statusCode).toBe(400);
    expect(foreign.json().error.code).toBe('VALIDATION_ERROR');

    // A deleted agent's sessions stay listed, without a name.
    expect((await co.call('DELETE', `/api/agents/${bo}`)).statusCode).toBe(204);
    await expect.poll(async () => (await co.call('GET', `/api/playground?agentId=${bo}`)).json().sessions[0]?.agentName, { timeout: 5000 }).toBeNull();
  });

  it('refuses a bad cursor, limit or agent id with 400 VALIDATION_ERROR', async () => {
    const co = await company();
    await startSession(co);
    await startSession(co);
    const cursorOfAgentList = (await co.call('GET', `/api/playground?agentId=${co.agentId}&limit=1`)).json().nextCursor as string;
    expect(cursorOfAgentList).toEqual(expect.any(String));
    for (const query of [
      'cursor=not-a-cursor',
      `cursor=${encodeURIComponent(cursorOfAgentList)}`, // a cursor of another query
      'limit=0',
      'limit=201',
      'limit=many',
      'agentId=not-a-uuid',
      'sort=asc',
    ]) {
      const res = await co.call('GET', `/api/playground?${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(res.json().error, query).toEqual({ code: 'VALIDATION_ERROR', message: expect.any(String) });
    }
    expect((await server.app.inject({ method: 'GET', url: '/api/playground' })).statusCode).toBe(401);
  });
});
