import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlatformIntegration, signUp, useOpenAiLlm } from '../support/api.js';
import { groundedPassages, startFakeLlm, type ChatCompletionBody, type FakeLlm } from '../support/fakeLlm.js';
import { startFakePlatform, type FakePlatform } from '../support/fakePlatform.js';
import { postPlatformWebhook } from '../support/platformWebhook.js';
import { startTestServer, type TestServer } from '../support/testServer.js';

/**
 * Grounded answers through the reply pipeline (issue 26, item 4): with an OpenAI-compatible provider the model
 * answers from the knowledge-base passages and cites them; the cited passages, and only those, are the reply's
 * sources. An answer citing none is handed off as "no confident answer" (its own reason in the queue and in
 * analytics) unless the agent allows general answers.
 */

const SECRET = 'whsec_grounded_0123456789';
const TOKEN = 'platform-token-grounded';
const HANDOFF = 'A colleague will reply soon.';

let server: TestServer;
let base: string;
let platform: FakePlatform;
let llm: FakeLlm;
/** What the scripted model answers next: given the passages' titles in the order it was offered them. */
let script: (titles: string[]) => object;

beforeAll(async () => {
  platform = await startFakePlatform({ token: TOKEN });
  llm = await startFakeLlm({
    reply: (body: ChatCompletionBody) => {
      const context = String(body.messages?.find((m) => m.role === 'system' && String(m.content).startsWith('Knowledge base passages'))?.content ?? '');
      const titles = [...context.matchAll(/^\[\d+\] (.*)$/gm)].map((m) => m[1]!);
      expect(titles).toHaveLength(groundedPassages(body));
      return JSON.stringify(script(titles));
    },
  });
  server = await startTestServer({ ALLOW_PRIVATE_PLATFORM_URLS: 'true', REPLY_BURST_WINDOW_MS: '50', LLM_MAX_RETRIES: '0' });
  base = await server.listen(0, '127.0.0.1');
});
afterAll(async () => {
  await server?.close();
  await platform?.close();
  await llm?.close();
});

async function shopWithTwoDocuments(name: string, agentFields: Record<string, unknown> = {}) {
  const co = await signUp(server, name);
  const agent = (await co.call('POST', '/api/agents', { name: 'Ava', handoffMessage: HANDOFF, ...agentFields })).json().agent;
  const shipping = (await co.call('POST', '/api/knowledge-base/documents', { title: 'Shipping', content: 'We ship to Norway, Sweden and Denmark within 5 working days. Shipping is free over 50 euros.' })).json().document;
  const returns = (await co.call('POST', '/api/knowledge-base/documents', { title: 'Returns', content: 'Shipping a return is free within 30 days of delivery.' })).json().document;
  await useOpenAiLlm(co, llm.url, { model: 'fake-model' });
  const integrationId = await createPlatformIntegration(co, { name: 'P', agentId: agent.id, apiUrl: platform.url, apiToken: TOKEN, webhookSecret: SECRET });
  return { ...co, agentId: agent.id as string, integrationId, shippingId: shipping.id as string, returnsId: returns.id as string };
}
type Shop = Awaited<ReturnType<typeof shopWithTwoDocuments>>;

/** The customer asks; resolves with the text the platform was sent and the AI reply as the conversation shows it. */
async function customerAsks(co: Shop, clientId: string, text: string) {
  await postPlatformWebhook(base, co.integrationId, SECRET, { hook_type: 'inbox', type: 'from_client', message_id: `m-${clientId}`, client_id: clientId, channel_id: 1, transport: 'telegram', text });
  await expect.poll(() => platform.messages().filter((m) => m.client_id === clientId).length, { timeout: 10_000 }).toBe(1);
  const sent = platform.messages().find((m) => m.client_id === clientId)!;
  const summary = (await co.call('GET', '/api/conversations')).json().conversations[0];
  const detail = (await co.call('GET', `/api/conversations/${summary.id}`)).json();
  const reply = detail.messages.find((m: { author: string }) => m.author === 'agent');
  return { sent: String(sent.text), reply, conversation: summary };
}

describe('grounded answers from an OpenAI-compatible model', () => {
  it('given two passages offered, when the model cites one, then the customer gets its answer and only the cited passage is the source', async () => {
    const co = await shopWithTwoDocuments('Grounded cited');
    script = (titles) => ({ citations: [titles.indexOf('Shipping') + 1], answer: 'Yes, we ship to Norway within 5 working days.', handoff: false, handoffReason: null });
    const { sent, reply } = await customerAsks(co, 'g-cited', 'Is shipping to Norway free?');
    const asked = llm.completionRequests.at(-1)!.body as ChatCompletionBody;
    expect(asked).toMatchObject({ response_format: { type: 'json_schema' } });
    expect(groundedPassages(asked)).toBe(2);
    expect(sent).toBe('Yes, we ship to Norway within 5 working days.');
    expect(reply.provenance.sources).toEqual([expect.objectContaining({ documentId: co.shippingId, title: 'Shipping' })]);
    // Why it answered, for the sources panel: a grounded answer, from the passage it cited.
    expect(reply.provenance.grounded).toBe(true);
  });

  it('given an answer citing no passage, then the handoff message is sent and the conversation waits for a human with "no confident answer", counted apart in analytics', async () => {
    const co = await shopWithTwoDocuments('Grounded uncited');
    script = () => ({ citations: [], answer: 'Yes, shipping to Finland is free.', handoff: false, handoffReason: null });
    const { sent, reply, conversation } = await customerAsks(co, 'g-uncited', 'Is shipping to Finland free?');
    expect(sent).toBe(HANDOFF);
    expect(reply.provenance.sources).toEqual([]);
    expect(conversation.handoff).toEqual({ reason: 'no_confident_answer', detail: null, since: expect.any(String) });
    const events = (await co.call('GET', `/api/conversations/${conversation.id}/events`)).json().events;
    expect(events.find((e: { type: string }) => e.type === 'AgentReplied').data).toMatchObject({ handoff: true, handoffReason: 'no confident answer', handoffCause: 'no_confident_answer' });
    await expect.poll(async () => (await co.call('GET', '/api/analytics')).json().totals.handedOff, { timeout: 10_000 }).toBe(1);
    expect((await co.call('GET', '/api/analytics')).json().totals.handoffReasons).toMatchObject({ no_confident_answer: 1, agent_handoff: 0 });
  });

  it('given an agent allowing general answers, when the model cites no passage, then its answer is sent, with no sources', async () => {
    const co = await shopWithTwoDocuments('Grounded general', { generalAnswers: true });
    expect((await co.call('GET', `/api/agents/${co.agentId}`)).json().agent.generalAnswers).toBe(true);
    script = () => ({ citations: [], answer: 'You are welcome! Anything else about shipping?', handoff: false, handoffReason: null });
    const { sent, reply, conversation } = await customerAsks(co, 'g-general', 'Thanks for the shipping info!');
    expect(sent).toBe('You are welcome! Anything else about shipping?');
    expect(reply.provenance.sources).toEqual([]);
    expect(conversation.handoff).toBeNull();
  });

  it("given the model hands off explicitly, then the customer gets the handoff message and the team reads the model's reason", async () => {
    const co = await shopWithTwoDocuments('Grounded handoff');
    script = () => ({ citations: [], answer: '', handoff: true, handoffReason: 'Nothing says whether we ship to Finland.' });
    const { sent, conversation } = await customerAsks(co, 'g-handoff', 'Do you ship to Finland?');
    expect(sent).toBe(HANDOFF);
    expect(conversation.handoff).toMatchObject({ reason: 'no_confident_answer', detail: 'Nothing says whether we ship to Finland.' });
  });

  it('given a citation of a passage that was not offered, then it is ignored: alone, the answer is handed off; beside a real one, only the real one is a source', async () => {
    const co = await shopWithTwoDocuments('Grounded bogus');
    script = () => ({ citations: [9], answer: 'We ship to Finland.', handoff: false, handoffReason: null });
    expect((await customerAsks(co, 'g-bogus', 'Do you ship to Finland?')).sent).toBe(HANDOFF);

    const other = await shopWithTwoDocuments('Grounded bogus and real');
    script = (titles) => ({ citations: [9, titles.indexOf('Returns') + 1], answer: 'Returns ship free within 30 days.', handoff: false, handoffReason: null });
    const { sent, reply } = await customerAsks(other, 'g-bogus-real', 'Is shipping a return free?');
    expect(sent).toBe('Returns ship free within 30 days.');
    expect(reply.provenance.sources).toEqual([expect.objectContaining({ documentId: other.returnsId })]);
  });
});
