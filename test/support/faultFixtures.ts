import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { signWebhookBody } from '../../src/http/platformWebhooks/webhookSignature.js';
import { openAdapters, wrapEventStore } from '../../src/infrastructure/adapters.js';
import { createLogger } from '../../src/infrastructure/logger.js';
import { SqliteEventStore } from '../../src/infrastructure/sqlite/sqliteEventStore.js';
import { createServer, type Server } from '../../src/server.js';
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

/** A server whose events.sqlite connection the test holds, to inject storage faults on the connection that writes. */
export interface ReachableStoreServer {
  server: Server;
  base: string;
  /** The event store the server writes through (before the wrapping every store gets). */
  raw: SqliteEventStore;
  /** events.sqlite in the server's data directory. */
  eventsPath: string;
  /** Stops the server and removes its data directory. */
  close(): Promise<void>;
}

/**
 * The embedded adapters with the event store swapped for one the test can reach, wrapped the same way
 * openAdapters() wraps it (write probe included).
 */
export async function startServerWithReachableStore(options: { busyTimeoutMs?: number } = {}): Promise<ReachableStoreServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mas-fault-store-'));
  const eventsPath = join(dataDir, 'events.sqlite');
  const logger = createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
  const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', DATA_DIR: dataDir, REPLY_BURST_WINDOW_MS: '0' });
  const opened = await openAdapters(config, logger);
  await opened.eventStore.close();
  const raw = new SqliteEventStore(eventsPath, options.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: options.busyTimeoutMs });
  const server = await createServer(config, logger, {
    adapters: {
      ...opened,
      eventStore: wrapEventStore(raw, () => raw.probeWrite()),
      async close() {
        await opened.close();
        await raw.close();
      },
    },
  });
  await server.processingStarted;
  const base = await server.listen(0, '127.0.0.1');
  return {
    server,
    base,
    raw,
    eventsPath,
    async close() {
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
