import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { signWebhookBody } from '../../src/http/platformWebhooks/webhookSignature.js';
import { createLogger } from '../../src/infrastructure/logger.js';
import { createServer, type Server } from '../../src/server.js';
import { startFakePlatform, type FakePlatform } from '../support/fakePlatform.js';

const SECRET = 'whsec_restart_0123456789';
const dataDir = mkdtempSync(join(tmpdir(), 'mas-restart-'));
let platform: FakePlatform;
let server: Server | undefined;

const start = async () =>
  createServer(
    loadConfig({
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      DATA_DIR: dataDir,
      ALLOW_PRIVATE_PLATFORM_URLS: 'true',
      REPLY_BURST_WINDOW_MS: '0',
      // The first failed send waits a long time before its retry: the process dies in between.
      SEND_RETRY_BACKOFF_MS: '600000',
    }),
    createLogger({ level: 'silent' }),
  );

afterAll(async () => {
  await server?.stop();
  await platform?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('a restart between the reply and its delivery', () => {
  it('sends the stored reply once after the service comes back', async () => {
    platform = await startFakePlatform({ token: 'tok-restart' });
    server = await start();
    const inject = (method: 'GET' | 'POST', url: string, payload?: object, token?: string) =>
      server!.app.inject({ method, url, payload, headers: token ? { authorization: `Bearer ${token}` } : {} });
    await inject('POST', '/api/auth/register', { email: 'restart@example.com', password: 'correct horse', companyName: 'R' });
    const token = (await inject('POST', '/api/auth/login', { email: 'restart@example.com', password: 'correct horse' })).json().session.access_token;
    await inject('POST', '/api/knowledge-base/documents', { title: 'Hours', content: 'We are open from 9 to 17 on weekdays.' }, token);
    const agent = (await inject('POST', '/api/agents', { name: 'R' }, token)).json().agent;
    const integration = (
      await inject('POST', '/api/integrations', { name: 'P', connectorType: 'msgplatform', apiUrl: platform.url, apiToken: 'tok-restart', webhookSecret: SECRET, agentId: agent.id }, token)
    ).json().integration;

    platform.failNext(1, 503);
    const body = JSON.stringify({ client_id: 'r1', channel_id: 1, transport: 'telegram', text: 'When are you open?', message_id: 'restart-1' });
    const res = await server.app.inject({
      method: 'POST',
      url: `/api/webhook/msgplatform/${integration.id}`,
      payload: body,
      headers: { 'content-type': 'application/json', 'x-webhook-signature': signWebhookBody(body, SECRET) },
    });
    expect(res.statusCode).toBe(200);
    // The reply is generated and stored, its first send fails, and the retry is far away.
    await expect.poll(() => platform.received.filter((r) => r.path.endsWith('/v1/messages')).length, { timeout: 10_000 }).toBe(1);
    expect(platform.messages()).toHaveLength(0);
    await server.stop();

    server = await start();
    await platform.waitForMessages(1, 10_000);
    await new Promise((r) => setTimeout(r, 500));
    expect(platform.messages()).toHaveLength(1);
    expect(platform.messages()[0]).toMatchObject({ client_id: 'r1', text: expect.stringContaining('9 to 17') });
    const events = await server.adapters.eventStore.readAll({ filter: { eventTypes: ['AgentReplied', 'MessageDelivered'] } });
    expect(events.map((e) => e.type)).toEqual(['AgentReplied', 'MessageDelivered']);
  });
});
