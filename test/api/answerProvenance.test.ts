import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlatformIntegration, signUp, useOpenAiLlm } from '../support/api.js';
import { startFakeLlm, type FakeLlm } from '../support/fakeLlm.js';
import { startFakePlatform, type FakePlatform } from '../support/fakePlatform.js';
import { postPlatformWebhook } from '../support/platformWebhook.js';
import { startTestServer, type TestServer } from '../support/testServer.js';

/**
 * Answer provenance in the read model: GET /api/conversations/:id gives each AI reply its model, token counts and
 * what produced it (knowledge-base sources, latency, cost); other messages carry nulls. The customer's text is
 * exactly the answer, with nothing of that appended.
 */

const SECRET = 'whsec_provenance_0123456789';
const TOKEN = 'platform-token-provenance';
const LLM_KEY = 'sk-test-provenance';

let server: TestServer;
let base: string;
let platform: FakePlatform;
let llm: FakeLlm;

beforeAll(async () => {
  platform = await startFakePlatform({ token: TOKEN });
  llm = await startFakeLlm({ apiKey: LLM_KEY, reply: 'We ship to Norway within 5 days.', usage: { prompt_tokens: 300, completion_tokens: 40 } });
  server = await startTestServer({
    ALLOW_PRIVATE_PLATFORM_URLS: 'true',
    REPLY_BURST_WINDOW_MS: '50',
    LLM_MAX_RETRIES: '0',
    LLM_PRICE_TABLE: JSON.stringify({ 'fake-model': { inputMicrosPer1K: 1000, outputMicrosPer1K: 2000 } }),
  });
  base = await server.listen(0, '127.0.0.1');
});
afterAll(async () => {
  await server?.close();
  await platform?.close();
  await llm?.close();
});

async function companyWithKnowledge(provider: 'builtin' | 'openai') {
  const co = await signUp(server, `Provenance ${provider}`);
  const agent = (await co.call('POST', '/api/agents', { name: 'Ava', handoffMessage: 'A colleague will reply soon.' })).json().agent;
  const doc = (await co.call('POST', '/api/knowledge-base/documents', { title: 'Shipping', content: 'We ship to Norway, Sweden and Denmark within 5 working days.' })).json().document;
  if (provider === 'openai') await useOpenAiLlm(co, llm.url, { apiKey: LLM_KEY, model: 'fake-model' });
  const integrationId = await createPlatformIntegration(co, { name: 'P', agentId: agent.id, apiUrl: platform.url, apiToken: TOKEN, webhookSecret: SECRET });
  return { ...co, integrationId, documentId: doc.id as string };
}

async function customerAsks(integrationId: number, clientId: string, text: string) {
  await postPlatformWebhook(base, integrationId, SECRET, { hook_type: 'inbox', type: 'from_client', message_id: `m-${clientId}`, client_id: clientId, channel_id: 1, transport: 'telegram', text });
  await expect.poll(() => platform.messages().filter((m) => m.client_id === clientId).length, { timeout: 10_000 }).toBe(1);
  return platform.messages().find((m) => m.client_id === clientId)!;
}

async function conversationOf(co: Awaited<ReturnType<typeof companyWithKnowledge>>) {
  const id = (await co.call('GET', '/api/conversations')).json().conversations[0].id as string;
  const res = await co.call('GET', `/api/conversations/${id}`);
  expect(res.statusCode).toBe(200);
  return { id, ...res.json() };
}

describe('answer provenance in the conversation read model', () => {
  it('builtin provider: the AI reply names the knowledge-base passage it quoted; the customer gets exactly the answer text', async () => {
    const co = await companyWithKnowledge('builtin');
    const sent = await customerAsks(co.integrationId, 'prov-builtin', 'Do you ship to Norway?');
    const { messages, id } = await conversationOf(co);
    const [customer, agent] = messages;
    expect(customer).toMatchObject({ author: 'customer', model: null, inputTokens: null, outputTokens: null, provenance: null });
    expect(agent).toMatchObject({
      author: 'agent',
      model: expect.any(String),
      inputTokens: 0,
      outputTokens: 0,
      provenance: { sources: [{ documentId: co.documentId, title: 'Shipping', chunkIndex: 0, score: expect.any(Number) }], latencyMs: expect.any(Number), costMicros: 0, usageEstimated: false },
    });
    // What the customer received is the stored answer, word for word: no sources, no ids.
    const replied = (await co.call('GET', `/api/conversations/${id}/events`)).json().events.find((e: { type: string }) => e.type === 'AgentReplied');
    expect(sent.text).toBe(replied.data.text);
    expect(agent.text).toBe(replied.data.text);
    expect(sent.text).toContain('We ship to Norway');
    expect(String(sent.text)).not.toContain(co.documentId);
    expect(String(sent.text)).not.toMatch(/sources|passage|score/i);
  });

  it('OpenAI-compatible provider: model, reported tokens and cost are on the message, and the customer text is the model output unchanged', async () => {
    const co = await companyWithKnowledge('openai');
    const sent = await customerAsks(co.integrationId, 'prov-openai', 'Do you ship to Norway?');
    expect(sent.text).toBe('We ship to Norway within 5 days.');
    const { messages } = await conversationOf(co);
    const agent = messages.find((m: { author: string }) => m.author === 'agent');
    expect(agent).toMatchObject({
      text: 'We ship to Norway within 5 days.',
      model: 'fake-model',
      inputTokens: 300,
      outputTokens: 40,
      // 300 × 1000/1K + 40 × 2000/1K micros
      provenance: { sources: [expect.objectContaining({ documentId: co.documentId, title: 'Shipping' })], costMicros: 380, usageEstimated: false },
    });
  });

  it('another company cannot read the conversation (and so its sources)', async () => {
    const co = await companyWithKnowledge('builtin');
    await customerAsks(co.integrationId, 'prov-tenant', 'Do you ship to Norway?');
    const { id } = await conversationOf(co);
    const other = await signUp(server, 'Other');
    const res = await other.call('GET', `/api/conversations/${id}`);
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe('NOT_FOUND');
  });
});
