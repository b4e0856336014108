import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAgent, createWebchatIntegration, signUp, useOpenAiLlm } from '../support/api.js';
import { wireCompany } from '../support/faultFixtures.js';
import { startFakeLlm, type ChatCompletionBody, type FakeLlm } from '../support/fakeLlm.js';
import { startFakePlatform, type FakePlatform } from '../support/fakePlatform.js';
import { startTestServer, type TestServer } from '../support/testServer.js';
import { connectWebchat, PER_IP_WEBCHAT_LIMITS_LIFTED, type Frame, type WebchatClient } from '../support/webchatClient.js';

/**
 * Streaming to web chat and handoff by the model, end to end: a real server, a web-chat WebSocket client, an
 * OpenAI-compatible fake that streams (SSE chunks, a few ms apart), and a fake messaging platform.
 */
const ORIGIN = 'http://shop.example';
const HANDOFF = 'A colleague will reply soon.';
const ANSWER = 'We ship to Norway, Sweden and Denmark within three business days, and shipping is free above fifty euros.';

let server: TestServer;
let base: string;
let llm: FakeLlm;
let platform: FakePlatform;
const clients: WebchatClient[] = [];

beforeAll(async () => {
  llm = await startFakeLlm({ reply: ANSWER, chunkChars: 3, chunkDelayMs: 8 });
  platform = await startFakePlatform({ token: 'tok-streaming' });
  server = await startTestServer({
    ALLOW_PRIVATE_PLATFORM_URLS: 'true',
    REPLY_BURST_WINDOW_MS: '0',
    LLM_MAX_RETRIES: '0',
    LLM_RETRY_DELAYS_MS: '30,30',
    ...PER_IP_WEBCHAT_LIMITS_LIFTED,
  });
  base = await server.listen(0, '127.0.0.1');
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  await server?.close();
  await Promise.all([llm?.close(), platform?.close()]);
});
beforeEach(() => llm.reset());

/** A company answering with the streaming fake, and a web chat visitor who said hello. */
async function visitor() {
  const co = await signUp(server, 'Streaming Inc');
  const agentId = await createAgent(co, { name: 'Ava', systemPrompt: 'You are Ava.', handoffMessage: HANDOFF });
  await useOpenAiLlm(co, llm.url);
  const client = await connectWebchat(base, await createWebchatIntegration(co, agentId, [ORIGIN]), { origin: ORIGIN });
  clients.push(client);
  const ready = await client.hello();
  expect(ready.type).toBe('ready');
  return { co, client, conversationId: ready.conversationId as string };
}

const events = async (conversationId: string) => server.adapters.eventStore.readStream(`conversation-${conversationId}`);
const ofType = async (conversationId: string, type: string) => (await events(conversationId)).filter((e) => e.type === type).map((e) => e.data as Record<string, any>);
const agentMessage = (f: Frame) => f.type === 'message' && f.author === 'agent';
const deltasOf = (c: WebchatClient) => c.frames.filter((f) => f.type === 'delta');
/** The partial as a client following the protocol holds it: offset 0 starts over, a continuation is appended. */
function assemble(deltas: Frame[]): string {
  let text = '';
  for (const d of deltas) {
    if (d.offset === 0) text = d.text;
    else if (d.offset === text.length) text += d.text;
  }
  return text;
}

describe('streaming a reply to a web chat visitor', () => {
  it('sends coalesced delta frames of the reply before its final message; their concatenation is the final text, stored as one AgentReplied', async () => {
    const { client, conversationId } = await visitor();
    expect((await client.message('Do you ship to Norway?', 'c-1')).type).toBe('ack');
    const final = await client.waitFor(agentMessage, 15_000);
    expect(final.text).toBe(ANSWER);

    const finalAt = client.frames.indexOf(final);
    const deltas = deltasOf(client);
    expect(deltas.length).toBeGreaterThan(1);
    // Every delta came before the final message, named the reply it belongs to, and they add up to it.
    expect(client.frames.slice(finalAt).some((f) => f.type === 'delta')).toBe(false);
    expect(new Set(deltas.map((d) => d.id))).toEqual(new Set([final.id]));
    expect(deltas.map((d) => d.text).join('')).toBe(final.text);
    expect(deltas.map((d) => d.offset)).toEqual(deltas.map((_, i) => deltas.slice(0, i).reduce((n, d) => n + d.text.length, 0)));
    // Coalesced: far fewer frames than the model's chunks (one per 3 characters).
    const chunks = Math.ceil(ANSWER.length / 3);
    expect(deltas.length).toBeLessThan(chunks / 2);
    for (const d of deltas) expect(d.text.length).toBeLessThanOrEqual(2000);

    expect(llm.completionRequests).toHaveLength(1);
    expect(llm.completionRequests[0]!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    const replies = await ofType(conversationId, 'AgentReplied');
    expect(replies).toHaveLength(1);
    expect(replies[0]).toMatchObject({ messageId: final.id, text: ANSWER, handoff: false });
    expect(replies[0]!.inputTokens).toBeGreaterThan(0);
    // typing ends after the reply.
    await client.waitFor((f) => f.type === 'typing' && f.on === false, 5000, finalAt);
  }, 30_000);

  it('two visitors streaming at once each get only their own reply, whole', async () => {
    llm.reply = (body) => `Answer for ${String(body.messages?.at(-1)?.content)}: ${ANSWER}`;
    const [a, b] = await Promise.all([visitor(), visitor()]);
    await Promise.all([a.client.message('visitor A', 'c-a'), b.client.message('visitor B', 'c-b')]);
    const [finalA, finalB] = await Promise.all([a.client.waitFor(agentMessage, 15_000), b.client.waitFor(agentMessage, 15_000)]);
    expect(finalA.text).toBe(`Answer for visitor A: ${ANSWER}`);
    expect(finalB.text).toBe(`Answer for visitor B: ${ANSWER}`);
    for (const [c, final] of [[a.client, finalA], [b.client, finalB]] as const) {
      const deltas = deltasOf(c);
      expect(deltas.length).toBeGreaterThan(1);
      expect(deltas.every((d) => d.id === final.id)).toBe(true);
      expect(deltas.map((d) => d.text).join('')).toBe(final.text);
    }
  }, 30_000);

  it('a retry after a stream that broke off starts the partial over (offset 0): the old text is never glued to the new', async () => {
    llm.breakStreamNext(1, 10);
    const { client, conversationId } = await visitor();
    await client.message('Do you ship to Norway?', 'c-1');
    const final = await client.waitFor(agentMessage, 15_000);
    expect(final.text).toBe(ANSWER);
    const deltas = deltasOf(client);
    expect(deltas.filter((d) => d.offset === 0).length).toBe(2);
    const restart = deltas.findIndex((d, i) => i > 0 && d.offset === 0);
    expect(deltas.slice(restart).map((d) => d.text).join('')).toBe(ANSWER);
    expect(assemble(deltas)).toBe(ANSWER);
    expect(llm.completionRequests).toHaveLength(2);
    expect(await ofType(conversationId, 'AgentReplied')).toHaveLength(1);
  }, 30_000);

  it('a model that keeps failing mid-stream: deltas, then the handoff message instead of silence (the conversation records it unanswered for a human)', async () => {
    llm.breakStreamNext(3, 5);
    const { client, conversationId } = await visitor();
    await client.message('Do you ship to Norway?', 'c-1');
    await client.waitFor((f) => f.type === 'delta', 10_000);
    await expect.poll(async () => (await ofType(conversationId, 'MessagesUnanswered')).length, { timeout: 15_000, interval: 50 }).toBe(1);
    // The visitor is not left in silence: the agent's handoff message arrives as the answer.
    await client.waitFor((f) => agentMessage(f) && f.text === HANDOFF, 5000);
    expect(await ofType(conversationId, 'AgentReplied')).toEqual([expect.objectContaining({ text: HANDOFF, handoff: true, aiFailed: true })]);
    // Three streamed attempts at the answer (the handoff summary's own call, if any, does not stream).
    expect(llm.completionRequests.filter((r) => (r.body as { stream?: boolean }).stream === true)).toHaveLength(3);
  }, 30_000);

  it('an operator taking over mid-stream stops the stream: no more deltas, nothing stored, typing off; the call is charged on its estimate', async () => {
    llm.chunkDelayMs = 60;
    const { co, client, conversationId } = await visitor();
    const charges = async () =>
      (await server.adapters.eventStore.readStream(`credits-${co.company.companyId}`)).filter((e) => e.type === 'CreditsConsumed').map((e) => e.data as Record<string, any>);
    await client.message('Do you ship to Norway?', 'c-1');
    await client.waitFor((f) => f.type === 'delta', 10_000);
    expect((await co.call('POST', `/api/conversations/${conversationId}/pause`)).statusCode).toBe(200);
    await client.waitFor((f) => f.type === 'typing' && f.on === false, 5000, client.frames.findIndex((f) => f.type === 'delta'));
    const seen = deltasOf(client).length;
    await new Promise((r) => setTimeout(r, 500));
    expect(deltasOf(client).length).toBe(seen);
    expect(assemble(deltasOf(client)).length).toBeLessThan(ANSWER.length);
    expect(client.frames.some(agentMessage)).toBe(false);
    expect(await ofType(conversationId, 'AgentReplied')).toEqual([]);
    // The provider billed the prompt and what it wrote before the stop, and reported no usage: estimated, ~4 chars a token.
    await expect.poll(charges, { timeout: 5000 }).toHaveLength(1);
    const [charge] = await charges();
    expect(charge).toMatchObject({ model: 'gpt-4o-mini', conversationId });
    expect(charge!.amountMicros).toBeGreaterThan(0);
    expect(charge!.inputTokens).toBeGreaterThanOrEqual(Math.ceil('You are Ava.Do you ship to Norway?'.length / 4));
    expect(charge!.outputTokens).toBeGreaterThan(0);
    expect(charge!.outputTokens).toBeLessThan(Math.ceil(ANSWER.length / 4));
  }, 30_000);
});

describe('the platform path never streams', () => {
  it('a msgplatform conversation with the same model gets exactly one platform message, asked without stream', async () => {
    const co = await wireCompany(base, { platformUrl: platform.url, platformToken: platform.token, llmUrl: llm.url, name: 'Platform Co' });
    expect(await co.post({ clientId: 'stream-1', messageId: 'stream-m1', text: 'Do you ship to Norway?' })).toBe(200);
    await platform.waitForMessages(1, 10_000);
    await new Promise((r) => setTimeout(r, 300));
    expect(platform.messages().filter((m) => m.client_id === 'stream-1').map((m) => m.text)).toEqual([ANSWER]);
    expect(llm.completionRequests).toHaveLength(1);
    expect((llm.completionRequests[0]!.body as ChatCompletionBody).stream).toBeUndefined();
  }, 30_000);
});

describe('handoff by the model', () => {
  it('a handoff_to_human call (streamed) answers with the handoff message, records the reason and puts the conversation in "Needs human"', async () => {
    llm.handoffNext('The customer asks for a refund of an order older than a year.');
    const { co, client, conversationId } = await visitor();
    await client.message('I want my money back for last year’s order', 'c-1');
    const final = await client.waitFor(agentMessage, 15_000);
    expect(final.text).toBe(HANDOFF);
    const body = llm.completionRequests[0]!.body as ChatCompletionBody & { tools: any[] };
    expect(body.stream).toBe(true);
    expect(body.tools[0].function.name).toBe('handoff_to_human');

    const [reply] = await ofType(conversationId, 'AgentReplied');
    expect(reply).toMatchObject({ text: HANDOFF, handoff: true, handoffReason: 'The customer asks for a refund of an order older than a year.' });
    const queue = await co.call('GET', '/api/conversations?view=needs_human');
    expect(queue.statusCode).toBe(200);
    expect(queue.json().conversations).toEqual([
      expect.objectContaining({ id: conversationId, handoff: expect.objectContaining({ reason: 'agent_handoff', detail: 'The customer asks for a refund of an order older than a year.' }) }),
    ]);
    const one = await co.call('GET', `/api/conversations/${conversationId}`);
    expect(one.json().conversation.handoff.detail).toBe('The customer asks for a refund of an order older than a year.');
  }, 30_000);

  it('a server that rejects tools still answers (once with, then without tools) and the visitor gets the answer', async () => {
    llm.rejectTools = true;
    const { client } = await visitor();
    await client.message('Do you ship to Norway?', 'c-1');
    const final = await client.waitFor(agentMessage, 15_000);
    expect(final.text).toBe(ANSWER);
    expect(llm.completionRequests.map((r) => (r.body as ChatCompletionBody).tools !== undefined)).toEqual([true, false]);
  }, 30_000);
});
