import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conversationIdFor } from '../../src/commands/conversations/conversationIds.js';
import { testMessageBody } from '../../src/http/platformWebhooks/inProcessWebhook.js';
import { signWebhookBody } from '../../src/http/platformWebhooks/webhookSignature.js';
import { signUp, useOpenAiLlm, type Company } from '../support/api.js';
import { startFakeLlm, type ChatCompletionBody, type FakeLlm } from '../support/fakeLlm.js';
import { startTestServer, type TestServer } from '../support/testServer.js';

/**
 * Handoffs: the customer always gets a reply when the AI cannot answer, and the team reads why in plain words.
 */

const SECRET = 'whsec_handoff_0123456789abcdef';
const HANDOFF_MESSAGE = 'Our team will get back to you within the hour.';

let server: TestServer;
/** The server's clock runs this far ahead of the wall clock: a test moves it to let a timeout pass. */
let clockAheadMs = 0;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A port nothing listens on: the model is unreachable there (connection refused). */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** A company whose sandbox integration is answered by an agent with HANDOFF_MESSAGE; its integration id. */
async function sandboxCompany(co: Company, agentFields: Record<string, unknown> = {}): Promise<{ integrationId: number; agentId: string }> {
  const agent = await co.call('POST', '/api/agents', { name: 'Ava', handoffMessage: HANDOFF_MESSAGE, ...agentFields });
  expect(agent.statusCode).toBe(201);
  const agentId = agent.json().agent.id as string;
  const created = await co.call('POST', '/api/integrations', { name: 'Try-out', connectorType: 'msgplatform', webhookSecret: SECRET, agentId });
  expect(created.statusCode).toBe(201);
  return { integrationId: created.json().integration.id as number, agentId };
}

const detailOf = async (co: Company, id: string) => (await co.call('GET', `/api/conversations/${id}`)).json();
const messagesOf = async (co: Company, id: string) => (await detailOf(co, id)).messages as Array<{ author: string; text: string; delivery: string }>;
const eventsOf = async (co: Company, id: string) => (await co.call('GET', `/api/conversations/${id}/events`)).json().events as Array<{ type: string; data: Record<string, unknown> }>;

beforeAll(async () => {
  server = await startTestServer({
    ALLOW_PRIVATE_PLATFORM_URLS: 'true',
    REPLY_BURST_WINDOW_MS: '0',
    LLM_TIMEOUT_MS: '1000',
    LLM_MAX_RETRIES: '0',
    LLM_RETRY_DELAYS_MS: '10',
    // The clock moves ahead by hours in a test: the access tokens must outlive it.
    ACCESS_TOKEN_TTL_SECONDS: '86400',
  }, undefined, { clock: { now: () => new Date(Date.now() + clockAheadMs) } });
});
afterAll(async () => {
  await server?.close();
});

describe('a model that cannot be reached', () => {
  it('given an LLM on a closed port, when a customer writes, then they get the handoff message and the team reads the cause in plain words', async () => {
    const acme = await signUp(server, 'Acme');
    await useOpenAiLlm(acme, `http://127.0.0.1:${await closedPort()}/v1`);
    const { integrationId } = await sandboxCompany(acme);

    const sent = await acme.call('POST', `/api/integrations/${integrationId}/test-message`, { text: 'Where is my order?' });
    expect(sent.statusCode).toBe(202);
    const { conversationId } = sent.json();

    await expect.poll(async () => (await messagesOf(acme, conversationId)).find((m) => m.author === 'agent')?.delivery, { timeout: 10_000 }).toBe('sent');
    expect((await messagesOf(acme, conversationId)).map((m) => [m.author, m.text])).toEqual([
      ['customer', 'Where is my order?'],
      ['system', 'Not answered by the AI agent: The AI model could not be reached (connection refused)'],
      ['agent', HANDOFF_MESSAGE],
    ]);
    const { conversation } = await detailOf(acme, conversationId);
    expect(conversation).toMatchObject({
      session: { state: 'paused', pausedReason: 'handoff' },
      unansweredReason: 'The AI model could not be reached (connection refused)',
      handoff: { reason: 'ai_unanswered', detail: 'The AI model could not be reached (connection refused)' },
    });
    // Nothing the team (or the customer) reads names an internal address, a port or a socket error code.
    const everything = JSON.stringify([await detailOf(acme, conversationId), await eventsOf(acme, conversationId)]);
    expect(everything).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|:\d{4,5}\b|connect /);
  });
});

const KB = 'We ship to Norway, Sweden and Denmark within 3 business days.';
const UNANSWERABLE = 'What is the meaning of life?';
const ANSWERABLE = 'Do you ship to Norway?';

/** A builtin-model company with the shipping knowledge base; its sandbox integration and a way to write as one customer. */
async function builtinCompany(name: string, agentFields: Record<string, unknown> = {}) {
  const co = await signUp(server, name);
  expect((await co.call('POST', '/api/knowledge-base/documents', { title: 'Shipping', content: KB })).statusCode).toBe(201);
  const { integrationId } = await sandboxCompany(co, agentFields);
  // One customer writing again and again (a test message is a new test customer each time): signed webhooks.
  const clientId = `customer-${name}`;
  const write = async (text: string) => {
    const body = testMessageBody(text, clientId);
    const headers = { 'content-type': 'application/json', 'x-webhook-signature': signWebhookBody(body, SECRET) };
    const res = await server.app.inject({ method: 'POST', url: `/api/webhook/msgplatform/${integrationId}`, payload: body, headers });
    expect(res.statusCode).toBe(200);
    return conversationIdFor(integrationId, clientId);
  };
  return { co, write };
}

const agentTexts = async (co: Company, id: string) => (await messagesOf(co, id)).filter((m) => m.author === 'agent').map((m) => m.text);

/** Hands the customer's conversation to people: the builtin agent cannot answer UNANSWERABLE. */
async function handedOff(co: Company, write: (text: string) => Promise<string>): Promise<string> {
  const id = await write(UNANSWERABLE);
  await expect.poll(() => agentTexts(co, id), { timeout: 10_000 }).toEqual([HANDOFF_MESSAGE]);
  expect((await detailOf(co, id)).conversation).toMatchObject({ session: { state: 'paused', pausedReason: 'handoff' }, handoff: { reason: 'no_confident_answer' } });
  return id;
}

describe('no handoff loops', () => {
  it('given a handed-off conversation, when the customer writes again, then it stays with people: no AI answer, still in "Needs human"', async () => {
    const { co, write } = await builtinCompany('Loops');
    const id = await handedOff(co, write);
    await write(ANSWERABLE);
    // Time for the reply job to run: it must find the session paused and leave the message to people.
    await sleep(1500);
    expect(await agentTexts(co, id)).toEqual([HANDOFF_MESSAGE]);
    expect((await detailOf(co, id)).conversation).toMatchObject({ session: { state: 'paused' }, handoff: { reason: 'no_confident_answer' } });
  });

  it('given a handed-off conversation, when a teammate resumes the AI, then the next message is answered by the AI', async () => {
    const { co, write } = await builtinCompany('Resumed');
    const id = await handedOff(co, write);
    expect((await co.call('POST', `/api/conversations/${id}/resume`)).statusCode).toBe(200);
    await write(ANSWERABLE);
    await expect.poll(() => agentTexts(co, id), { timeout: 10_000 }).toEqual([HANDOFF_MESSAGE, expect.stringContaining('We ship to Norway')]);
    expect((await detailOf(co, id)).conversation.handoff).toBeNull();
  });

  it('given an agent handing back after 30 minutes, when the customer writes 31 minutes after the handoff, then the AI takes it back and answers; at 10 minutes it does not', async () => {
    const { co, write } = await builtinCompany('Timeout', { handBackAfterMinutes: 30 });
    const id = await handedOff(co, write);
    clockAheadMs += 10 * 60_000;
    await write(ANSWERABLE);
    await sleep(1500);
    expect(await agentTexts(co, id)).toEqual([HANDOFF_MESSAGE]);

    clockAheadMs += 21 * 60_000;
    await write('And to Sweden?');
    await expect.poll(() => agentTexts(co, id), { timeout: 10_000 }).toEqual([HANDOFF_MESSAGE, expect.stringContaining('Sweden')]);
    const resumed = (await eventsOf(co, id)).filter((e) => e.type === 'AiSessionResumed');
    expect(resumed).toEqual([expect.objectContaining({ data: expect.objectContaining({ by: 'hand-back-timeout' }) })]);
    expect((await detailOf(co, id)).conversation).toMatchObject({ session: { state: 'active' }, handoff: null });
  });

  it('the agent setting reads back, null by default; out of range is refused', async () => {
    const co = await signUp(server, 'Settings');
    const created = await co.call('POST', '/api/agents', { name: 'Ava' });
    expect(created.json().agent.handBackAfterMinutes).toBeNull();
    const id = created.json().agent.id as string;
    expect((await co.call('PATCH', `/api/agents/${id}`, { handBackAfterMinutes: 60 })).json().agent.handBackAfterMinutes).toBe(60);
    expect((await co.call('PATCH', `/api/agents/${id}`, { handBackAfterMinutes: 0 })).statusCode).toBe(400);
    expect((await co.call('PATCH', `/api/agents/${id}`, { handBackAfterMinutes: null })).json().agent.handBackAfterMinutes).toBeNull();
  });
});

describe('the handoff summary', () => {
  it('given the builtin model, when the AI hands off, then the conversation carries the summary extracted from the messages', async () => {
    const { co, write } = await builtinCompany('Summary builtin');
    const id = await handedOff(co, write);
    await expect.poll(async () => (await detailOf(co, id)).conversation.handoffSummary, { timeout: 10_000 }).toMatchObject({
      wants: `“${UNANSWERABLE}”`,
      tried: 'The AI did not answer; the customer got the handoff message',
      sources: [],
      why: 'The AI had no confident answer: the knowledge base did not cover the question well enough',
      writtenBy: 'extractive',
    });
    // The queue shows it too.
    const queue = (await co.call('GET', '/api/conversations?view=needs_human')).json().conversations as Array<{ id: string; handoffSummary: unknown }>;
    expect(queue.find((c) => c.id === id)?.handoffSummary).toMatchObject({ writtenBy: 'extractive' });
    // A teammate answering ends the handoff, and its summary with it.
    expect((await co.call('POST', `/api/conversations/${id}/messages`, { text: 'Hello, I can help.' })).statusCode).toBeLessThan(300);
    await expect.poll(async () => (await detailOf(co, id)).conversation.handoffSummary, { timeout: 5000 }).toBeNull();
  });

  describe('with the company\'s model', () => {
    let llm: FakeLlm;
    beforeAll(async () => {
      const isSummary = (body: ChatCompletionBody) => String(body.messages?.[0]?.content ?? '').includes('handoff note');
      llm = await startFakeLlm({
        reply: (body) => (isSummary(body) ? { content: 'WANTS: A refund for a parcel two weeks late.\nTRIED: Told the customer a colleague would reply.', usage: { prompt_tokens: 1000, completion_tokens: 1000 } } : 'Echo'),
      });
    });
    afterAll(async () => llm?.close());

    it('given a model handing off, then the model writes the summary, and its call is charged once', async () => {
      const co = await signUp(server, 'Summary model');
      await useOpenAiLlm(co, llm.url);
      const { integrationId } = await sandboxCompany(co);
      const creditsBefore = (await co.call('GET', '/api/credits')).json().credits.balanceMicros as number;
      llm.handoffNext('Refunds need a person');
      const sent = await co.call('POST', `/api/integrations/${integrationId}/test-message`, { text: 'My parcel is two weeks late, refund please' });
      const id = sent.json().conversationId as string;
      await expect.poll(async () => (await detailOf(co, id)).conversation.handoffSummary, { timeout: 10_000 }).toMatchObject({
        wants: 'A refund for a parcel two weeks late.',
        tried: 'Told the customer a colleague would reply.',
        why: 'The AI handed off: Refunds need a person',
        writtenBy: 'llm',
      });
      const summaries = (await eventsOf(co, id)).filter((e) => e.type === 'HandoffSummarized');
      expect(summaries).toHaveLength(1);
      expect(summaries[0]!.data).toMatchObject({ model: 'gpt-4o-mini', inputTokens: 1000, outputTokens: 1000 });
      // gpt-4o-mini: 1000 × 150/1K + 1000 × 600/1K = 750 micro-dollars for the summary, besides the reply's own charge.
      const summaryCharge = 750;
      await expect.poll(async () => ((await co.call('GET', '/api/credits')).json().credits.ledger as Array<{ deltaMicros: number }>).filter((e) => e.deltaMicros === -summaryCharge).length, { timeout: 5000 }).toBe(1);
      await sleep(500);
      const ledger = (await co.call('GET', '/api/credits')).json().credits.ledger as Array<{ deltaMicros: number; conversationId?: string }>;
      expect(ledger.filter((e) => e.deltaMicros === -summaryCharge && e.conversationId === id)).toHaveLength(1);
      expect((await co.call('GET', '/api/credits')).json().credits.balanceMicros).toBeLessThanOrEqual(creditsBefore - summaryCharge);
    });
  });
});
