import { expect } from 'vitest';
import { signWebhookBody } from '../../src/http/webhookSignature.js';
import { uniqueEmail } from './testServer.js';

/**
 * A company wired end to end over HTTP against a listening server (`base`): an agent, the LLM configuration
 * (an OpenAI-compatible fake, or builtin), and a msgplatform integration pointing at a fake platform.
 * Works against in-process servers and child processes alike.
 */
export interface WiredCompany {
  token: string;
  integrationId: number;
  secret: string;
  /** Posts a signed customer message; resolves with the HTTP status. */
  post(message: { clientId: string; messageId: string; text: string }, target?: string): Promise<number>;
  call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
}

export async function wireCompany(
  base: string,
  options: { platformUrl: string; platformToken: string; llmUrl?: string; name?: string; kb?: string },
): Promise<WiredCompany> {
  const secret = `whsec_${Math.random().toString(36).slice(2)}_0123456789`;
  const call = async (method: string, path: string, body?: unknown, token?: string, at = base) => {
    const res = await fetch(at + path, {
      method,
      headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: res.status === 204 ? null : await res.json() };
  };
  const email = uniqueEmail('fault');
  expect((await call('POST', '/api/auth/register', { email, password: 'correct horse', companyName: options.name ?? 'Fault Co' })).status).toBe(201);
  const token = (await call('POST', '/api/auth/login', { email, password: 'correct horse' })).body.session.access_token as string;
  if (options.kb) expect((await call('POST', '/api/knowledge-base/documents', { title: 'KB', content: options.kb }, token)).status).toBe(201);
  const agent = (await call('POST', '/api/agents', { name: 'Agent', handoffMessage: 'A colleague will reply soon.' }, token)).body.agent;
  if (options.llmUrl) {
    expect((await call('PUT', '/api/llm-config', { provider: 'openai', baseUrl: options.llmUrl, apiKey: 'sk-fault', model: 'gpt-4o-mini' }, token)).status).toBe(200);
  }
  const created = await call(
    'POST',
    '/api/integrations',
    { name: 'P', connectorType: 'msgplatform', apiUrl: options.platformUrl, apiToken: options.platformToken, webhookSecret: secret, agentId: agent.id },
    token,
  );
  expect(created.status).toBe(201);
  const integrationId = created.body.integration.id as number;
  return {
    token,
    integrationId,
    secret,
    call: (method, path, body) => call(method, path, body, token),
    async post(m, target = base) {
      const raw = JSON.stringify({ hook_type: 'inbox', type: 'from_client', message_id: m.messageId, client_id: m.clientId, channel_id: 1, transport: 'telegram', text: m.text });
      const res = await fetch(`${target}/api/webhook/msgplatform/${integrationId}`, {
        method: 'POST',
        body: raw,
        headers: { 'content-type': 'application/json', 'x-webhook-signature': signWebhookBody(raw, secret) },
      });
      await res.arrayBuffer();
      return res.status;
    },
  };
}
