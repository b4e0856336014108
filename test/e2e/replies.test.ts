import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, createPlatformIntegration, signUp, useOpenAiLlm } from '../support/api.js';
import { startFakeLlm, type FakeLlm } from '../support/fakeLlm.js';
import { startFakePlatform, type FakePlatform } from '../support/fakePlatform.js';
import { postPlatformWebhook } from '../support/platformWebhook.js';
import { startTestServer, type TestServer } from '../support/testServer.js';
import { EVIDENCE_THRESHOLDS } from '../../src/domain/answers/evidence.js';

const SECRET = 'whsec_replies_0123456789';
const PLATFORM_TOKEN = 'platform-token-replies';
const LLM_KEY = 'sk-test-replies-key';

let server: TestServer;
let base: string;
let platform: FakePlatform;
let llm: FakeLlm;

beforeAll(async () => {
  platform = await startFakePlatform({ token: PLATFORM_TOKEN });
  llm = await startFakeLlm({ apiKey: LLM_KEY, reply: (body) => `Answer to: ${String(body.messages?.at(-1)?.content)}`, usage: { prompt_tokens: 100, completion_tokens: 20 } });
  server = await startTestServer({
    ALLOW_PRIVATE_PLATFORM_URLS: 'true',
    REPLY_BURST_WINDOW_MS: '300',
    LLM_RETRY_DELAYS_MS: '50,50',
    LLM_MAX_RETRIES: '0',
    SEND_RETRY_BACKOFF_MS: '50,50,50',
    SEND_MAX_ATTEMPTS: '3',
    LLM_PRICE_TABLE: JSON.stringify({ 'fake-model': { inputMicrosPer1K: 1000, outputMicrosPer1K: 2000 }, 'pricey-model': { inputMicrosPer1K: 60_000_000, outputMicrosPer1K: 0 } }),
  });
  base = await server.listen(0, '127.0.0.1');
});
afterAll(async () => {
  await server?.close();
  await platform?.close();
  await llm?.close();
});
afterEach(() => {
  llm.reset();
  llm.reply = (body) => `Answer to: ${String(body.messages?.at(-1)?.content)}`;
  llm.usage = { prompt_tokens: 100, completion_tokens: 20 };
});

async function company(options: { model?: string; provider?: 'openai' | 'builtin' } = {}) {
  const co = await signUp(server, 'Replies Inc');
  const agentId = await createAgent(co, { name: 'Ava', systemPrompt: 'You are Ava, a concise support agent.', handoffMessage: 'A colleague will reply soon.' });
  if ((options.provider ?? 'openai') === 'openai') await useOpenAiLlm(co, llm.url, { apiKey: LLM_KEY, model: options.model ?? 'fake-model' });
  const integrationId = await createPlatformIntegration(co, { agentId, apiUrl: platform.url, apiToken: PLATFORM_TOKEN, webhookSecret: SECRET });
  return { ...co, integrationId, agentId };
}

let seq = 0;
const webhook = (integrationId: number, payload: Record<string, unknown>) => postPlatformWebhook(base, integrationId, SECRET, payload);
const inbound = (clientId: string | number, text: string, extra: Record<string, unknown> = {}) => ({
  hook_type: 'inbox',
  type: 'from_client',
  message_id: `m-${Date.now()}-${seq++}`,
  client_id: clientId,
  channel_id: 12,
  transport: 'telegram',
  text,
  ...extra,
});
const sentTo = (clientId: string | number) => platform.messages().filter((m) => m.client_id === clientId);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function conversationOf(co: Awaited<ReturnType<typeof company>>, clientId: string | number) {
  const list = (await co.call('GET', '/api/conversations?limit=200')).json().conversations;
  const found = list.find((c: any) => c.customer.clientId === clientId);
  expect(found).toBeDefined();
  return (await co.call('GET', `/api/conversations/${found.id}`)).json();
}

describe('a customer writes, the agent answers through the same channel', () => {
  it("signed inbound message → the LLM's reply reaches the platform with the same client, channel and transport", async () => {
    const co = await company();
    await webhook(co.integrationId, inbound(555, 'Do you ship to Norway?'));
    const [sent] = await platform.waitForMessages(sentTo(555).length + 1, 10_000).then(() => sentTo(555));
    expect(sent).toEqual({ client_id: 555, channel_id: 12, transport: 'telegram', type: 'to_client', text: 'Answer to: Do you ship to Norway?' });
    const request = llm.completionRequests.at(-1)!;
    expect(request.authorization).toBe(`Bearer ${LLM_KEY}`);
    const body = request.body as { model: string; messages: { role: string; content: string }[] };
    expect(body.model).toBe('fake-model');
    expect(body.messages[0]).toMatchObject({ role: 'system', content: expect.stringContaining('You are Ava') });
    await expect.poll(async () => (await conversationOf(co, 555)).messages.map((m: any) => [m.author, m.delivery]), { timeout: 5000 }).toEqual([
      ['customer', 'received'],
      ['agent', 'sent'],
    ]);
  });

  it('a duplicate delivery gets one reply', async () => {
    const co = await company();
    const payload = inbound('dup-client', 'Hello twice');
    await webhook(co.integrationId, payload);
    await webhook(co.integrationId, payload);
    await platform.waitForMessages(1, 10_000);
    await expect.poll(() => sentTo('dup-client').length, { timeout: 5000 }).toBe(1);
    await sleep(800);
    expect(sentTo('dup-client')).toHaveLength(1);
  });

  it('a first message delivered twice at once, amid other traffic, is answered exactly once in every conversation', async () => {
    const co = await company();
    const clients = Array.from({ length: 16 }, (_, i) => `race-first-${i}`);
    const background = Array.from({ length: 48 }, (_, i) => webhook(co.integrationId, inbound(`race-bg-${i % 6}`, `Background ${i}`)));
    await Promise.all([
      ...background,
      ...clients.flatMap((clientId) => {
        const payload = inbound(clientId, `First message of ${clientId}`);
        return [webhook(co.integrationId, payload), webhook(co.integrationId, payload)];
      }),
    ]);
    await expect.poll(() => clients.map((c) => sentTo(c).length), { timeout: 15_000, interval: 100 }).toEqual(clients.map(() => 1));
    for (const clientId of clients) {
      const { conversation, messages } = await conversationOf(co, clientId);
      expect(conversation.session.state).toBe('active');
      expect(messages.map((m: any) => m.author)).toEqual(['customer', 'agent']);
    }
    await sleep(500);
    expect(clients.map((c) => sentTo(c).length)).toEqual(clients.map(() => 1));
  });

  it('a paused session gets no reply', async () => {
    const co = await company();
    await webhook(co.integrationId, inbound('pause-client', 'First'));
    await expect.poll(() => sentTo('pause-client').length, { timeout: 10_000 }).toBe(1);
    const conversation = (await conversationOf(co, 'pause-client')).conversation;
    const paused = await co.call('POST', `/api/conversations/${conversation.id}/pause`);
    expect(paused.statusCode).toBe(200);
    expect(paused.json().conversation.session).toMatchObject({ state: 'paused', pausedReason: 'api' });
    const calls = llm.completionRequests.length;
    await webhook(co.integrationId, inbound('pause-client', 'Second'));
    await sleep(1000);
    expect(sentTo('pause-client')).toHaveLength(1);
    expect(llm.completionRequests.length).toBe(calls);
    // Resumed, the next message is answered again.
    await co.call('POST', `/api/conversations/${conversation.id}/resume`);
    await webhook(co.integrationId, inbound('pause-client', 'Third'));
    await expect.poll(() => sentTo('pause-client').length, { timeout: 10_000 }).toBe(2);
  });

  it('a human taking over during generation drops the reply', async () => {
    const co = await company();
    llm.delayMs = 1500;
    await webhook(co.integrationId, inbound('takeover', 'Can I speak to a human?', { request_id: 9191 }));
    await expect.poll(() => llm.completionRequests.length > 0 && (llm.completionRequests.at(-1)!.body as any).messages.at(-1).content === 'Can I speak to a human?', { timeout: 5000 }).toBe(true);
    // The operator answers on the platform while the LLM is still thinking.
    await webhook(co.integrationId, { hook_type: 'outbox', type: 'to_client', message_id: 'op-takeover', request_id: 9191, client_id: 'takeover', channel_id: 12, transport: 'telegram', text: 'Hi, Anna here.' });
    await sleep(2500);
    expect(sentTo('takeover')).toHaveLength(0);
    const detail = await conversationOf(co, 'takeover');
    expect(detail.conversation.session).toMatchObject({ state: 'paused', pausedReason: 'operator_message' });
    expect(detail.messages.map((m: any) => m.author)).toEqual(['customer', 'operator']);
  });

  it('a burst of messages is answered once, together, in order', async () => {
    const co = await company();
    for (const text of ['Hi', 'I ordered yesterday', 'Where is my parcel?']) await webhook(co.integrationId, inbound('burst', text));
    await expect.poll(() => sentTo('burst').length, { timeout: 10_000 }).toBe(1);
    await sleep(800);
    expect(sentTo('burst')).toHaveLength(1);
    expect(sentTo('burst')[0]!.text).toBe('Answer to: Hi\nI ordered yesterday\nWhere is my parcel?');
  });

  it('credits decrease with each LLM reply, per the price table', async () => {
    const co = await company();
    await webhook(co.integrationId, inbound('credits', 'How much?'));
    await expect.poll(() => sentTo('credits').length, { timeout: 10_000 }).toBe(1);
    // 100 input tokens at 1000 µ$/1K + 20 output tokens at 2000 µ$/1K = 100 + 40 = 140 µ$.
    await expect.poll(async () => (await co.call('GET', '/api/credits')).json().credits.balanceMicros, { timeout: 5000 }).toBe(5_000_000 - 140);
    const ledger = (await co.call('GET', '/api/credits')).json().credits.ledger;
    expect(ledger[0]).toMatchObject({ deltaMicros: -140, conversationId: expect.any(String) });
  });

  it('exhausted credits: no LLM call, the session pauses with credits_exhausted', async () => {
    const co = await company({ model: 'pricey-model' });
    await webhook(co.integrationId, inbound('broke', 'First question'));
    await expect.poll(() => sentTo('broke').length, { timeout: 10_000 }).toBe(1);
    await expect.poll(async () => (await co.call('GET', '/api/credits')).json().credits.balanceMicros, { timeout: 5000 }).toBe(0);
    const calls = llm.completionRequests.length;
    await webhook(co.integrationId, inbound('broke', 'Second question'));
    await expect.poll(async () => (await conversationOf(co, 'broke')).conversation.session, { timeout: 5000 }).toMatchObject({ state: 'paused', pausedReason: 'credits_exhausted' });
    expect(llm.completionRequests.length).toBe(calls);
    expect(sentTo('broke')).toHaveLength(1);
  });

  it('an LLM that keeps failing: the message is marked unanswered with the reason, the customer gets the handoff message, and a human takes over', async () => {
    const co = await company();
    llm.failNext(10, 500);
    await webhook(co.integrationId, inbound('llm-down', 'Anyone there?'));
    await expect.poll(async () => (await conversationOf(co, 'llm-down')).conversation.session?.state, { timeout: 10_000 }).toBe('paused');
    const detail = await conversationOf(co, 'llm-down');
    expect(detail.conversation.session.pausedReason).toBe('handoff');
    expect(detail.conversation.unansweredReason).toBe("The AI model's service had an error (HTTP 500)");
    expect(detail.conversation.unansweredReason).not.toContain(LLM_KEY);
    // Never silence: the one message the customer gets is the agent's handoff message.
    await expect.poll(() => sentTo('llm-down').length, { timeout: 10_000 }).toBe(1);
  });

  it('an LLM that fails once is retried and the customer still gets the answer', async () => {
    const co = await company();
    llm.failNext(1, 429);
    await webhook(co.integrationId, inbound('flaky', 'Retry me'));
    await expect.poll(() => sentTo('flaky').length, { timeout: 10_000 }).toBe(1);
  });

  it('a platform that refuses every send: retried, then the reply shows as failed with the reason', async () => {
    const co = await company();
    platform.failNext(3, 503);
    await webhook(co.integrationId, inbound('send-fails', 'Will this arrive?'));
    await expect.poll(async () => (await conversationOf(co, 'send-fails')).messages.find((m: any) => m.author === 'agent')?.delivery, { timeout: 10_000 }).toBe('failed');
    const agentMessage = (await conversationOf(co, 'send-fails')).messages.find((m: any) => m.author === 'agent');
    expect(agentMessage.deliveryError).toContain('503');
  });

  it('a platform that fails once: retried and delivered', async () => {
    const co = await company();
    platform.failNext(1, 500);
    await webhook(co.integrationId, inbound('send-once', 'Hello'));
    await expect.poll(async () => (await conversationOf(co, 'send-once')).messages.find((m: any) => m.author === 'agent')?.delivery, { timeout: 10_000 }).toBe('sent');
    expect(sentTo('send-once')).toHaveLength(1);
  });

  it('no agent assigned: the message is stored and not answered, and the conversation says why', async () => {
    const co = await company();
    await co.call('PATCH', `/api/integrations/${co.integrationId}`, { agentId: null });
    await webhook(co.integrationId, inbound('no-agent', 'Hello?'));
    await expect.poll(async () => (await conversationOf(co, 'no-agent')).conversation.unansweredReason, { timeout: 5000 }).toContain('no active AI agent');
    expect(sentTo('no-agent')).toHaveLength(0);
  });

  it('the builtin provider answers from the knowledge base, or hands off', async () => {
    const co = await company({ provider: 'builtin' });
    const doc = await co.call('POST', '/api/knowledge-base/documents', {
      title: 'Shipping',
      content: '# Shipping\n\nWe ship to Norway, Sweden and Denmark within 3 business days. Shipping is free above 50 EUR.',
    });
    expect(doc.statusCode).toBe(201);
    await webhook(co.integrationId, inbound('kb', 'Do you ship to Norway?'));
    await expect.poll(() => sentTo('kb').length, { timeout: 10_000 }).toBe(1);
    expect(sentTo('kb')[0]!.text).toContain('We ship to Norway');
    // The reply records what produced it: the passage it quoted, how long the model took, what it cost.
    const { conversation: kb } = await conversationOf(co, 'kb');
    const events = (await co.call('GET', `/api/conversations/${kb.id}/events`)).json().events;
    const replied = events.find((e: { type: string }) => e.type === 'AgentReplied');
    expect(replied.data.provenance).toEqual({
      sources: [{ documentId: doc.json().document.id, title: 'Shipping', chunkIndex: 0, score: expect.any(Number) }],
      latencyMs: expect.any(Number),
      costMicros: 0,
      usageEstimated: false,
      // ... and why it answered: the evidence score, at or above the agent's setting (balanced by default).
      evidence: expect.any(Number),
      answerThreshold: 'balanced',
      evidenceNeeded: EVIDENCE_THRESHOLDS.balanced,
    });
    expect(replied.data.provenance.evidence).toBeGreaterThanOrEqual(EVIDENCE_THRESHOLDS.balanced);
    await webhook(co.integrationId, inbound('kb2', 'Can I pay with bitcoin?'));
    await expect.poll(() => sentTo('kb2').length, { timeout: 10_000 }).toBe(1);
    expect(sentTo('kb2')[0]!.text).toBe('A colleague will reply soon.');
    // Builtin answers are free.
    expect((await co.call('GET', '/api/credits')).json().credits.balanceMicros).toBe(5_000_000);
  });

  it('an operator message from the dashboard is sent through the channel and pauses the AI', async () => {
    const co = await company();
    await webhook(co.integrationId, inbound('operator', 'Hi'));
    await expect.poll(() => sentTo('operator').length, { timeout: 10_000 }).toBe(1);
    const { conversation } = await conversationOf(co, 'operator');
    const res = await co.call('POST', `/api/conversations/${conversation.id}/messages`, { text: 'Hello from Anna' });
    expect(res.statusCode).toBe(202);
    expect(res.json().message).toMatchObject({ author: 'operator', text: 'Hello from Anna', delivery: 'pending' });
    await expect.poll(() => sentTo('operator').map((m) => m.text), { timeout: 10_000 }).toContain('Hello from Anna');
    expect((await conversationOf(co, 'operator')).conversation.session).toMatchObject({ state: 'paused', pausedReason: 'operator_message' });
  });

  it('close_dialog from the platform closes the session; the next message opens a new one that is answered', async () => {
    const co = await company();
    await webhook(co.integrationId, inbound('closer', 'Hi', { request_id: 4242 }));
    await expect.poll(() => sentTo('closer').length, { timeout: 10_000 }).toBe(1);
    await webhook(co.integrationId, { hook_type: 'close_dialog', request_id: 4242 });
    const closed = await conversationOf(co, 'closer');
    expect(closed.conversation.session.state).toBe('closed');
    const firstSession = closed.conversation.session.id;
    await webhook(co.integrationId, inbound('closer', 'Me again'));
    await expect.poll(() => sentTo('closer').length, { timeout: 10_000 }).toBe(2);
    const reopened = await conversationOf(co, 'closer');
    expect(reopened.conversation.session.state).toBe('active');
    expect(reopened.conversation.session.id).not.toBe(firstSession);
  });
});

describe('conversations API', () => {
  it('lists with filters and cursor pagination, changes stage against the pipeline, and replays the audit trail', async () => {
    const co = await company();
    for (const client of ['p1', 'p2', 'p3']) await webhook(co.integrationId, inbound(client, `hello from ${client}`));
    await expect.poll(async () => (await co.call('GET', '/api/conversations')).json().conversations.length, { timeout: 5000 }).toBe(3);
    const page1 = (await co.call('GET', '/api/conversations?limit=2')).json();
    expect(page1.conversations).toHaveLength(2);
    const page2 = (await co.call('GET', `/api/conversations?limit=2&cursor=${encodeURIComponent(page1.nextCursor)}`)).json();
    expect(page2.conversations).toHaveLength(1);
    expect(page2.nextCursor).toBeNull();
    const ids = [...page1.conversations, ...page2.conversations].map((c: any) => c.id);
    expect(new Set(ids).size).toBe(3);

    const stages = (await co.call('GET', '/api/pipeline')).json().pipeline.stages;
    const target = ids[0];
    expect((await co.call('GET', `/api/conversations/${target}`)).json().conversation.stageId).toBe(stages[0].id);
    const moved = await co.call('PUT', `/api/conversations/${target}/stage`, { stageId: stages[3].id });
    expect(moved.statusCode).toBe(200);
    expect(moved.json().conversation.stageId).toBe(stages[3].id);
    expect((await co.call('GET', `/api/conversations?stageId=${stages[3].id}`)).json().conversations.map((c: any) => c.id)).toEqual([target]);
    const other = await signUp(server, 'Other pipeline');
    const foreignStage = (await other.call('GET', '/api/pipeline')).json().pipeline.stages[1].id;
    const bad = await co.call('PUT', `/api/conversations/${target}/stage`, { stageId: foreignStage });
    expect(bad.statusCode).toBe(400);

    await co.call('POST', `/api/conversations/${target}/pause`);
    expect((await co.call('GET', '/api/conversations?state=paused')).json().conversations.map((c: any) => c.id)).toEqual([target]);

    const events = (await co.call('GET', `/api/conversations/${target}/events`)).json().events;
    expect(events[0]).toMatchObject({ position: expect.any(String), revision: '0', type: 'ConversationStarted' });
    expect(events.map((e: any) => e.type)).toEqual(expect.arrayContaining(['AiSessionOpened', 'MessageReceived', 'StageChanged', 'AiSessionPaused']));
    expect(events.map((e: any) => Number(e.revision))).toEqual(events.map((_: unknown, i: number) => i));

    // Company B sees none of it.
    for (const [method, url, payload] of [
      ['GET', `/api/conversations/${target}`],
      ['GET', `/api/conversations/${target}/events`],
      ['POST', `/api/conversations/${target}/pause`],
      ['POST', `/api/conversations/${target}/resume`],
      ['POST', `/api/conversations/${target}/close`],
      ['POST', `/api/conversations/${target}/messages`, { text: 'hi' }],
      ['PUT', `/api/conversations/${target}/stage`, { stageId: foreignStage }],
    ] as const) {
      expect((await other.call(method, url, payload)).statusCode, `${method} ${url}`).toBe(404);
    }
    expect((await other.call('GET', '/api/conversations')).json().conversations).toEqual([]);
  });
});
