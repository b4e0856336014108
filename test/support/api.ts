import { expect } from 'vitest';
import type { TestServer } from './testServer.js';
import { uniqueEmail } from './testServer.js';

/** A signed-in company for API tests: inject helpers bound to its bearer token. */
export async function signUp(server: TestServer, companyName = 'Acme', email = uniqueEmail()) {
  const reg = await server.app.inject({ method: 'POST', url: '/api/auth/register', payload: { email, password: 'correct horse', companyName } });
  expect(reg.statusCode).toBe(201);
  const login = await server.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email, password: 'correct horse' } });
  expect(login.statusCode).toBe(200);
  const { session, user } = login.json();
  const bearer = session.access_token as string;
  const call = (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, payload?: unknown, token = bearer) =>
    server.app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload !== undefined ? { payload: payload as object } : {}) });
  return { email, bearer, user, company: reg.json().company as { id: number; companyId: string; companyName: string }, call };
}

/** A company `signUp` made, with its authenticated `call`. */
export type Company = Awaited<ReturnType<typeof signUp>>;

/** Acme and Globex, two companies on one server: what the tenant-isolation checks compare. */
export async function acmeAndGlobex(server: TestServer): Promise<{ acme: Company; globex: Company }> {
  const acme = await signUp(server, 'Acme');
  const globex = await signUp(server, 'Globex');
  return { acme, globex };
}

/** `signUp`'s company with one messaging-platform integration: what webhook and integration tests start from. */
export async function signUpWithIntegration(server: TestServer, webhookSecret: string, companyName = 'Acme') {
  const company = await signUp(server, companyName);
  const created = await company.call('POST', '/api/integrations', { name: 'Main', connectorType: 'msgplatform', webhookSecret });
  expect(created.statusCode).toBe(201);
  return { ...company, integrationId: created.json().integration.id as number };
}

/** What the helpers below need of a company: `signUp`'s authenticated `call`. */
type Caller = Pick<Company, 'call'>;

/** An agent of the company (creation checked); its id. */
export async function createAgent(co: Caller, fields: Record<string, unknown> = { name: 'Ava', systemPrompt: 'You are Ava.' }): Promise<string> {
  const res = await co.call('POST', '/api/agents', fields);
  expect(res.statusCode).toBe(201);
  return res.json().agent.id as string;
}

/** A web-chat integration answered by `agentId` and allowed on `allowedOrigins` (creation checked); its id. */
export async function createWebchatIntegration(co: Caller, agentId: string, allowedOrigins: string[], fields: Record<string, unknown> = {}): Promise<number> {
  const res = await co.call('POST', '/api/integrations', { name: 'Site chat', connectorType: 'webchat', agentId, allowedOrigins, ...fields });
  expect(res.statusCode).toBe(201);
  return res.json().integration.id as number;
}

/** The company's model: an OpenAI-compatible server at `baseUrl` (a fake LLM). */
export async function useOpenAiLlm(co: Caller, baseUrl: string, options: { apiKey?: string; model?: string } = {}): Promise<void> {
  const res = await co.call('PUT', '/api/llm-config', { provider: 'openai', baseUrl, apiKey: options.apiKey ?? 'sk-test', model: options.model ?? 'gpt-4o-mini' });
  expect(res.statusCode).toBe(200);
}

/**
 * A msgplatform integration answered by `agentId` that sends its replies through the platform API at `apiUrl`
 * (creation checked); its id.
 */
export async function createPlatformIntegration(
  co: Caller,
  fields: { agentId: string; apiUrl: string; apiToken: string; webhookSecret: string; name?: string },
): Promise<number> {
  const res = await co.call('POST', '/api/integrations', { name: 'Platform', connectorType: 'msgplatform', ...fields });
  expect(res.statusCode).toBe(201);
  return res.json().integration.id as number;
}
