import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, createPlatformIntegration, signUp, useOpenAiLlm, type Company } from '../support/api.js';
import { startFakeLlm, type FakeLlm } from '../support/fakeLlm.js';
import { startFakePlatform, type FakePlatform } from '../support/fakePlatform.js';
import { postPlatformWebhook } from '../support/platformWebhook.js';
import { startTestServer, uniqueEmail, type TestServer } from '../support/testServer.js';

/**
 * Redaction before the model (issue 40 item 4): with the company's setting on, the scripted model is sent
 * placeholders instead of the customer's address and card number, answers with them, and the customer reads
 * the values back in the reply. Through a real listening server, the platform and the model faked.
 */
const SECRET = 'whsec_redaction_0123456789';
const PLATFORM_TOKEN = 'platform-token-redaction';
const LLM_KEY = 'sk-test-redaction-key';
const ADDRESS = 'jane.doe@example.org';
const CARD = '4111 1111 1111 1111';

let server: TestServer;
let base: string;
let platform: FakePlatform;
let llm: FakeLlm;

beforeAll(async () => {
  platform = await startFakePlatform({ token: PLATFORM_TOKEN });
  // The scripted model repeats what it was sent, so the customer's reply shows what the model saw and used.
  llm = await startFakeLlm({ apiKey: LLM_KEY, reply: (body) => `Noted: ${String(body.messages?.at(-1)?.content)}` });
  server = await startTestServer({ ALLOW_PRIVATE_PLATFORM_URLS: 'true', REPLY_BURST_WINDOW_MS: '0', LLM_MAX_RETRIES: '0' });
  base = await server.listen(0, '127.0.0.1');
});
afterAll(async () => {
  await server?.close();
  await platform?.close();
  await llm?.close();
});

async function company(name: string) {
  const co = await signUp(server, name);
  const agentId = await createAgent(co, { name: 'Ava', systemPrompt: 'You are Ava.', handoffMessage: 'A colleague will reply soon.' });
  await useOpenAiLlm(co, llm.url, { apiKey: LLM_KEY, model: 'fake-model' });
  const integrationId = await createPlatformIntegration(co, { agentId, apiUrl: platform.url, apiToken: PLATFORM_TOKEN, webhookSecret: SECRET });
  return { ...co, agentId, integrationId };
}

let seq = 0;
async function ask(co: { integrationId: number }, clientId: string, text: string) {
  const before = platform.messages().length;
  const requestsBefore = llm.completionRequests.length;
  await postPlatformWebhook(base, co.integrationId, SECRET, { hook_type: 'inbox', type: 'from_client', message_id: `r-${seq++}`, client_id: clientId, channel_id: 1, transport: 'telegram', text });
  await platform.waitForMessages(before + 1, 15_000);
  const sent = platform.messages().filter((m) => m.client_id === clientId).at(-1)!;
  return { reply: String(sent.text), sentToModel: JSON.stringify(llm.completionRequests.slice(requestsBefore).map((r) => r.body)) };
}

async function agentToken(owner: Company): Promise<string> {
  const invited = await owner.call('POST', '/api/team/invitations', { email: uniqueEmail('redaction-agent'), role: 'agent' });
  const url = invited.json().invitationUrl as string;
  const token = url.slice(url.indexOf('#/accept-invitation/') + '#/accept-invitation/'.length);
  const accepted = await server.app.inject({ method: 'POST', url: '/api/auth/accept-invitation', payload: { token, name: 'Agent', password: 'agent password' } });
  return accepted.json().session.access_token as string;
}

describe('redaction before the model', () => {
  it('on: the model never receives the address or the card number, and the customer gets them back where the model used the placeholders', async () => {
    const co = await company('Redacting Co');
    expect((await co.call('PUT', '/api/settings/redaction', { enabled: true })).json()).toEqual({ redaction: { enabled: true, agents: {} } });
    const { reply, sentToModel } = await ask(co, 'red-1', `Please refund to my card ${CARD} and confirm to ${ADDRESS}, order 123456789012`);
    expect(sentToModel).toContain('[CARD_1]');
    expect(sentToModel).toContain('[EMAIL_1]');
    expect(sentToModel).toContain('order 123456789012');
    expect(sentToModel).not.toContain(ADDRESS);
    expect(sentToModel).not.toContain('4111');
    expect(reply).toBe(`Noted: Please refund to my card ${CARD} and confirm to ${ADDRESS}, order 123456789012`);

    // The next prompt's history holds the earlier turns redacted too (the stored answer has the real values).
    const second = await ask(co, 'red-1', 'Did you get it?');
    expect(second.sentToModel).not.toContain(ADDRESS);
    expect(second.sentToModel).toContain('[EMAIL_1]');
  });

  it("off (the default), or off for this agent: the model reads the customer's words as written", async () => {
    const co = await company('Plain Co');
    expect((await co.call('GET', '/api/settings/redaction')).json()).toEqual({ redaction: { enabled: false, agents: {} } });
    expect((await ask(co, 'plain-1', `Write to ${ADDRESS}`)).sentToModel).toContain(ADDRESS);

    expect((await co.call('PUT', '/api/settings/redaction', { enabled: true, agents: { [co.agentId]: false } })).statusCode).toBe(200);
    expect((await ask(co, 'plain-2', `Write to ${ADDRESS}`)).sentToModel).toContain(ADDRESS);
  });
});

describe('the redaction setting: roles, tenants and validation', () => {
  it('agents may neither read nor change it (403); an agent of another company is 404; bad bodies are 400 and change nothing', async () => {
    const acme = await company('Acme Redaction');
    const other = await company('Other Redaction');
    const token = await agentToken(acme);
    expect((await acme.call('GET', '/api/settings/redaction', undefined, token)).statusCode).toBe(403);
    expect((await acme.call('PUT', '/api/settings/redaction', { enabled: true }, token)).statusCode).toBe(403);

    const foreign = await acme.call('PUT', '/api/settings/redaction', { enabled: true, agents: { [other.agentId]: true } });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json().error.code).toBe('NOT_FOUND');
    const bad = await acme.call('PUT', '/api/settings/redaction', { enabled: 'yes', agents: { 'not-a-uuid': true } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.code).toBe('VALIDATION_ERROR');
    expect((await acme.call('GET', '/api/settings/redaction')).json()).toEqual({ redaction: { enabled: false, agents: {} } });

    // Each company's setting is its own.
    expect((await acme.call('PUT', '/api/settings/redaction', { enabled: true, agents: { [acme.agentId]: false } })).json()).toEqual({ redaction: { enabled: true, agents: { [acme.agentId]: false } } });
    expect((await other.call('GET', '/api/settings/redaction')).json()).toEqual({ redaction: { enabled: false, agents: {} } });
  });
});
