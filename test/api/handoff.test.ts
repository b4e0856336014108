import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, useOpenAiLlm, type Company } from '../support/api.js';
import { startTestServer, type TestServer } from '../support/testServer.js';

/**
 * Handoffs: the customer always gets a reply when the AI cannot answer, and the team reads why in plain words.
 */

const SECRET = 'whsec_handoff_0123456789abcdef';
const HANDOFF_MESSAGE = 'Our team will get back to you within the hour.';

let server: TestServer;

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
  });
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
