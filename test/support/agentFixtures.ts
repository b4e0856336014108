import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import type { Company } from './api.js';
import { dashboardPage, startServerAndBrowser, type ServerAndBrowser } from './browser.js';
import type { TestServer } from './testServer.js';

/**
 * The set-up the agent suites share (versions, tests, release checks, experiments, the playground): an agent
 * with versions, a teammate of another role, and for the browser suites a server with a signed-in page and
 * calls to the API with its token.
 */

/** A teammate of `owner`'s company with `role`, invited and signed in: their bearer token. */
export async function teammateBearer(server: TestServer, owner: Pick<Company, 'call'>, role: 'admin' | 'agent', name = `A ${role}`): Promise<string> {
  const invited = await owner.call('POST', '/api/team/invitations', { email: `${role}-${Date.now()}-${Math.random()}@example.com`, role });
  expect(invited.statusCode).toBe(201);
  const token = String(invited.json().invitationUrl).split('#/accept-invitation/')[1];
  const accepted = await server.app.inject({ method: 'POST', url: '/api/auth/accept-invitation', payload: { token, name, password: 'a long password' } });
  expect(accepted.statusCode).toBe(200);
  return accepted.json().session.access_token as string;
}

/** An agent (version 1, published) and one draft version per entry of `drafts`: its id. */
export async function agentWithVersions(co: Pick<Company, 'call'>, fields: Record<string, unknown>, drafts: Record<string, unknown>[] = []): Promise<string> {
  const res = await co.call('POST', '/api/agents', { name: 'Ava', ...fields });
  expect(res.statusCode).toBe(201);
  const agentId = res.json().agent.id as string;
  for (const draft of drafts) expect((await co.call('POST', `/api/agents/${agentId}/versions`, draft)).statusCode).toBe(201);
  return agentId;
}

export type DashboardApi = (method: string, path: string, body?: unknown) => Promise<{ status: number; json: any }>;

/** A call to the API with the signed-in dashboard's token (set-up the UI has its own tests for). */
export const dashboardApi =
  (page: () => Page): DashboardApi =>
  (method, path, body) =>
    page().evaluate(
      async ({ method, path, body }) => {
        const bearer = (JSON.parse(localStorage.getItem('mas.session') ?? 'null') as { access_token: string }).access_token;
        const res = await fetch(path, { method, headers: { authorization: `Bearer ${bearer}`, ...(body ? { 'content-type': 'application/json' } : {}) }, ...(body ? { body: JSON.stringify(body) } : {}) });
        return { status: res.status, json: res.status === 204 ? null : await res.json() };
      },
      { method, path, body },
    );

export interface AgentDashboard {
  readonly stage: ServerAndBrowser;
  readonly server: TestServer;
  readonly base: string;
  readonly page: Page;
  api: DashboardApi;
}

/**
 * A server (replies after a 50 ms burst window) and a dashboard page for the suite, started before its tests
 * and closed after them; sign in with signUpInDashboard.
 */
export function agentDashboard(env: Record<string, string> = { REPLY_BURST_WINDOW_MS: '50' }): AgentDashboard {
  let stage: ServerAndBrowser | undefined;
  let page: Page | undefined;
  beforeAll(async () => {
    stage = await startServerAndBrowser(env);
    page = await dashboardPage(stage.browser, { timeoutMs: 15_000 });
  });
  afterAll(async () => {
    await stage?.close();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the agent dashboard is not started yet');
    return value;
  };
  return {
    get stage() {
      return started(stage);
    },
    get server() {
      return started(stage).server;
    },
    get base() {
      return started(stage).base;
    },
    get page() {
      return started(page);
    },
    api: dashboardApi(() => started(page)),
  };
}
