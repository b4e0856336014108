import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlatformIntegration, signUp, useOpenAiLlm } from '../support/api.js';
import { startFakeLlm, type FakeLlm } from '../support/fakeLlm.js';
import { startFakePlatform, type FakePlatform } from '../support/fakePlatform.js';
import { postPlatformWebhook } from '../support/platformWebhook.js';
import { startTestServer, type TestServer } from '../support/testServer.js';

/**
 * Charges the company's own LLM endpoint cannot zero (issue 21, defect 7): a customer's reply is charged at the
 * price of the model the company configured, on the usage the endpoint reports or on the estimate from the prompt
 * and the answer when that is more; the ledger (CreditsConsumed.usageSource) says which.
 */

const SECRET = 'whsec_credits_0123456789abcdef';
const TOKEN = 'platform-token-credits';
const LLM_KEY = 'sk-test-credits';
const ANSWER = 'We ship to Norway within 5 working days, free of charge above 50 euros.';

let server: TestServer;
let base: string;
let platform: FakePlatform;
let llm: FakeLlm;
/** What the endpoint claims: set per test. */
let claims: { model?: string; usage?: { prompt_tokens: number; completion_tokens: number } } = {};

beforeAll(async () => {
  platform = await startFakePlatform({ token: TOKEN });
  llm = await startFakeLlm({ apiKey: LLM_KEY, reply: () => ({ content: ANSWER, ...claims }) });
  server = await startTestServer({
    ALLOW_PRIVATE_PLATFORM_URLS: 'true',
    REPLY_BURST_WINDOW_MS: '50',
    LLM_MAX_RETRIES: '0',
    LLM_PRICE_TABLE: JSON.stringify({ 'premium-model': { inputMicrosPer1K: 10_000, outputMicrosPer1K: 20_000 }, 'cheap-model': { inputMicrosPer1K: 1, outputMicrosPer1K: 1 } }),
  });
  base = await server.listen(0, '127.0.0.1');
});
afterAll(async () => {
  await server?.close();
  await platform?.close();
  await llm?.close();
});

async function chargedReply(tag: string) {
  const co = await signUp(server, `Credits ${tag}`);
  const agent = (await co.call('POST', '/api/agents', { name: 'Ava', handoffMessage: 'A colleague will reply soon.' })).json().agent;
  await useOpenAiLlm(co, llm.url, { apiKey: LLM_KEY, model: 'premium-model' });
  const integrationId = await createPlatformIntegration(co, { name: 'P', agentId: agent.id, apiUrl: platform.url, apiToken: TOKEN, webhookSecret: SECRET });
  await postPlatformWebhook(base, integrationId, SECRET, { hook_type: 'inbox', type: 'from_client', message_id: `m-${tag}`, client_id: `c-${tag}`, channel_id: 1, transport: 'telegram', text: 'Do you ship to Norway?' });
  const charges = async () =>
    (await server.adapters.eventStore.readStream(`credits-${co.company.companyId}`)).filter((e) => e.type === 'CreditsConsumed').map((e) => e.data as Record<string, any>);
  await expect.poll(charges, { timeout: 10_000 }).toHaveLength(1);
  return (await charges())[0]!;
}

describe('a customer reply is charged whatever the company\u2019s endpoint reports', () => {
  it('given an endpoint that reports 0 tokens, then the reply is still charged, on the estimate', async () => {
    claims = { usage: { prompt_tokens: 0, completion_tokens: 0 } };
    const charge = await chargedReply('zero');
    expect(charge).toMatchObject({ model: 'premium-model', usageSource: 'estimated', outputTokens: Math.ceil(ANSWER.length / 4) });
    expect(charge.inputTokens).toBeGreaterThan(0);
    expect(charge.amountMicros).toBeGreaterThan(0);
  });

  it('given an endpoint that reports a cheaper model than the one configured, then the configured model\u2019s price is charged', async () => {
    claims = { model: 'cheap-model', usage: { prompt_tokens: 2000, completion_tokens: 500 } };
    const charge = await chargedReply('cheap');
    expect(charge).toMatchObject({ model: 'premium-model', usageSource: 'reported', inputTokens: 2000, outputTokens: 500 });
    // premium-model: 2000 × 10,000/1K + 500 × 20,000/1K micros.
    expect(charge.amountMicros).toBe(20_000 + 10_000);
  });
});
