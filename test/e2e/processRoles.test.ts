import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wireCompany } from '../support/faultFixtures.js';
import { startFakePlatform, type FakePlatform } from '../support/fakePlatform.js';
import { freePort, startServiceProcess, type ServiceProcess } from '../support/serviceProcess.js';

const PLATFORM_TOKEN = 'platform-token-roles';
let platform: FakePlatform;
let dataDir: string;
let api: ServiceProcess;
let processor: ServiceProcess;

beforeAll(async () => {
  platform = await startFakePlatform({ token: PLATFORM_TOKEN });
  dataDir = mkdtempSync(join(tmpdir(), 'mas-roles-'));
  const shared = { DATA_DIR: dataDir, ALLOW_PRIVATE_PLATFORM_URLS: 'true', REPLY_BURST_WINDOW_MS: '0' };
  // Two processes on one data directory: one serves the API, the other projects, reacts and answers.
  processor = await startServiceProcess({ ...shared, ROLE: 'processor' }, await freePort());
  api = await startServiceProcess({ ...shared, ROLE: 'api' }, await freePort());
}, 120_000);
afterAll(async () => {
  await api?.kill('SIGTERM');
  await processor?.kill('SIGTERM');
  await platform?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('ROLE=api and ROLE=processor as separate processes', () => {
  it('the API reads its own writes, and a webhook it acknowledges is answered by the processor', async () => {
    // wireCompany creates and then reads back: read-your-writes across processes.
    const company = await wireCompany(api.base, { platformUrl: platform.url, platformToken: PLATFORM_TOKEN, kb: 'Returns: within 30 days of delivery.' });
    const list = await company.call('GET', '/api/integrations');
    expect(list.body.integrations.map((i: { id: number }) => i.id)).toEqual([company.integrationId]);

    expect(await company.post({ clientId: 'roles-1', messageId: 'roles-m1', text: 'What are your returns rules?' })).toBe(200);
    await platform.waitForMessages(1, 20_000);
    expect(platform.messages()[0]).toMatchObject({ client_id: 'roles-1', type: 'to_client' });

    await expect
      .poll(async () => (await company.call('GET', '/api/conversations')).body.conversations[0]?.messageCount, { timeout: 10_000, interval: 100 })
      .toBe(2);
  }, 60_000);

  it('the processor serves only health: /readyz with its event-loop delay, /metrics, no API routes', async () => {
    const ready = await (await fetch(`${processor.base}/readyz`)).json();
    expect(ready.ok).toBe(true);
    expect(ready.metrics.eventLoop.processor).toMatchObject({ p99Ms: expect.any(Number) });
    // Scraped on its own PORT: the API instances do not see another process's metrics.
    const metrics = await (await fetch(`${processor.base}/metrics`)).text();
    expect(metrics).toMatch(/^mas_event_loop_delay_seconds\{thread="processor",stat="p99"\} /m);
    expect(metrics).toMatch(/^mas_projection_lag_positions\{projection="conversations"\} /m);
    expect(metrics).toMatch(/^mas_llm_request_duration_seconds_count\{provider="builtin",outcome="ok"\} 1$/m);
    expect(metrics).toMatch(/^process_cpu_user_seconds_total /m);
    expect((await fetch(`${processor.base}/api/integrations`)).status).toBe(404);
    const apiReady = await (await fetch(`${api.base}/readyz`)).json();
    expect(apiReady.metrics.eventLoop.api).toMatchObject({ p99Ms: expect.any(Number) });
  });
});
