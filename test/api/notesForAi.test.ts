import { afterAll, beforeAll, expect, it } from 'vitest';
import { signUp, useOpenAiLlm } from '../support/api.js';
import { startFakeLlm, type FakeLlm } from '../support/fakeLlm.js';
import { postPlatformWebhook } from '../support/platformWebhook.js';
import { startTestServer, type TestServer } from '../support/testServer.js';

/** What the company's model is given of internal notes: nothing, until an owner or admin shares them. */

const SECRET = 'whsec_notes_ai_0123456789abcdef';
const LLM_KEY = 'sk-notes-ai';
let server: TestServer;
let base: string;
let llm: FakeLlm;

beforeAll(async () => {
  llm = await startFakeLlm({ apiKey: LLM_KEY, reply: 'Happy to help.' });
  server = await startTestServer({ ALLOW_PRIVATE_PLATFORM_URLS: 'true', REPLY_BURST_WINDOW_MS: '0', LLM_MAX_RETRIES: '0' });
  base = await server.listen(0, '127.0.0.1');
});
afterAll(async () => {
  await server?.close();
  await llm?.close();
});

const promptText = (i: number) => JSON.stringify(llm.completionRequests[i]?.body ?? null);

it('a note stays out of the prompt until the company shares notes; then the next answer reads it', async () => {
  const co = await signUp(server, 'Notes AI Co');
  await useOpenAiLlm(co, llm.url, { apiKey: LLM_KEY, model: 'fake-model' });
  const agent = (await co.call('POST', '/api/agents', { name: 'Ava', systemPrompt: 'You are Ava.' })).json().agent;
  const integrationId = (await co.call('POST', '/api/integrations', { name: 'Line', connectorType: 'msgplatform', agentId: agent.id, webhookSecret: SECRET })).json().integration.id;
  const asks = async (text: string, n: number) => {
    await postPlatformWebhook(base, integrationId, SECRET, { text, client_id: 'notes-ai-customer', channel_id: 1, transport: 'telegram' });
    await expect.poll(() => llm.completionRequests.length, { timeout: 15_000 }).toBe(n);
  };

  await asks('Where is my refund?', 1);
  const conversationId = (await co.call('GET', '/api/conversations')).json().conversations[0].id as string;
  expect((await co.call('POST', `/api/conversations/${conversationId}/notes`, { text: 'VIP customer, refund approved yesterday' })).statusCode).toBe(201);

  await asks('Any news?', 2);
  expect(promptText(1)).toContain('Any news?');
  expect(promptText(1)).not.toContain('VIP customer');

  expect((await co.call('PUT', '/api/settings/notes', { shareWithAi: true })).statusCode).toBe(200);
  await asks('Hello again?', 3);
  expect(promptText(2)).toContain('VIP customer, refund approved yesterday');
  expect(promptText(2)).toContain('Internal note from the support team');
}, 60_000);
