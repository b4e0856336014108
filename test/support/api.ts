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

/** `signUp`'s company with one messaging-platform integration: what webhook and integration tests start from. */
export async function signUpWithIntegration(server: TestServer, webhookSecret: string, companyName = 'Acme') {
  const company = await signUp(server, companyName);
  const created = await company.call('POST', '/api/integrations', { name: 'Main', connectorType: 'msgplatform', webhookSecret });
  expect(created.statusCode).toBe(201);
  return { ...company, integrationId: created.json().integration.id as number };
}
