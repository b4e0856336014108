import { randomUUID } from 'node:crypto';
import { ANSWER_DOCUMENT, inboundBody, signedHeaders } from './inbound.js';
import { signUp } from './serviceApi.js';

export type TenantLlm = { provider: 'builtin' } | { provider: 'openai'; baseUrl: string; apiKey: string; model: string };

export interface Tenant {
  name: string;
  bearer: string;
  call: Awaited<ReturnType<typeof signUp>>['call'];
  integrationId: number;
  /** POST path of the integration's signed webhook. */
  webhookPath: string;
  secret: string;
  /** A signed ~1 KB inbound message of `clientId` (one conversation per client_id), with its own message_id. */
  message(clientId: string, id?: string): { id: string; body: Buffer; headers: Record<string, string> };
  setLlm(llm: TenantLlm): Promise<void>;
}

/**
 * A company set up through the HTTP API as a customer would: sign-up, optionally an agent with a knowledge-base
 * document answering the bench's messages (so the builtin LLM answers instead of handing off) and the company's
 * LLM configuration, and a msgplatform integration with a webhook secret whose replies go to `platform`.
 * Without `agent` the reply pipeline marks every message unanswered (no agent assigned).
 */
export async function setUpTenant(
  serviceUrl: string,
  options: { name: string; agent?: boolean; llm?: TenantLlm; platform?: { url: string; token: string } },
): Promise<Tenant> {
  const company = await signUp(serviceUrl, options.name);
  const secret = `whsec_${randomUUID().replaceAll('-', '')}`;
  let agentId: string | null = null;
  const setLlm = async (llm: TenantLlm) => {
    await company.call('PUT', '/api/llm-config', llm.provider === 'builtin' ? { provider: 'builtin' } : llm, 200);
  };
  if (options.agent) {
    const created = await company.call(
      'POST',
      '/api/agents',
      { name: 'Ava', systemPrompt: 'You are Ava, a concise support agent of an outdoor shop.', handoffMessage: 'A colleague will reply soon.' },
      201,
    );
    agentId = created.agent.id as string;
    await company.call('POST', '/api/knowledge-base/documents', ANSWER_DOCUMENT, 201);
  }
  if (options.llm) await setLlm(options.llm);
  const integration = await company.call(
    'POST',
    '/api/integrations',
    {
      name: `${options.name} platform`,
      connectorType: 'msgplatform',
      webhookSecret: secret,
      ...(options.platform ? { apiUrl: options.platform.url, apiToken: options.platform.token } : {}),
      ...(agentId ? { agentId } : {}),
    },
    201,
  );
  const integrationId = integration.integration.id as number;
  const run = randomUUID().slice(0, 8);
  let seq = 0;
  return {
    name: options.name,
    bearer: company.bearer,
    call: company.call,
    integrationId,
    webhookPath: `/api/webhook/msgplatform/${integrationId}`,
    secret,
    message(clientId, id = `${run}-${seq++}`) {
      const body = inboundBody(id, clientId);
      return { id, body, headers: signedHeaders(body, secret) };
    },
    setLlm,
  };
}
