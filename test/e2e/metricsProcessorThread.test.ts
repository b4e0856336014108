import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allProjections } from '../../src/projections/index.js';
import { wireCompany } from '../support/faultFixtures.js';
import { startFakePlatform, type FakePlatform } from '../support/fakePlatform.js';
import { samples, valueOf } from '../support/prometheus.js';
import { freePort, startServiceProcess, type ServiceProcess } from '../support/serviceProcess.js';

const PLATFORM_TOKEN = 'platform-token-metrics-thread';
let platform: FakePlatform;
let dataDir: string;
let service: ServiceProcess;

beforeAll(async () => {
  platform = await startFakePlatform({ token: PLATFORM_TOKEN });
  dataDir = mkdtempSync(join(tmpdir(), 'mas-metrics-thread-'));
  // ROLE=all with PROCESSOR_THREAD=true (as `npm start` runs): projections, reactors and workers on their own thread.
  service = await startServiceProcess({ DATA_DIR: dataDir, ALLOW_PRIVATE_PLATFORM_URLS: 'true', REPLY_BURST_WINDOW_MS: '0', PROCESSOR_THREAD: 'true' }, await freePort());
}, 120_000);
afterAll(async () => {
  await service?.kill('SIGTERM');
  await platform?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('GET /metrics with the processor on its own thread', () => {
  it("merges the processor thread's metrics (LLM calls, projection lag, its event loop) into the API's exposition", async () => {
    const company = await wireCompany(service.base, { platformUrl: platform.url, platformToken: PLATFORM_TOKEN, kb: 'Shipping: we ship to Norway within 3 days.' });
    expect(await company.post({ clientId: 'thread-1', messageId: 'thread-m1', text: 'Do you ship to Norway?' })).toBe(200);
    await platform.waitForMessages(1, 20_000);

    const res = await fetch(`${service.base}/metrics`);
    expect(res.status).toBe(200);
    const text = await res.text();
    // Recorded on the main thread.
    expect(valueOf(text, 'mas_webhook_request_duration_seconds_count', { outcome: 'processed' })).toBe(1);
    expect(samples(text, 'mas_event_loop_delay_seconds', { thread: 'api', stat: 'p99' })).toHaveLength(1);
    // Recorded on the two processing threads (replies, projections), only reachable through their message ports.
    expect(valueOf(text, 'mas_llm_request_duration_seconds_count', { provider: 'builtin', outcome: 'ok' })).toBe(1);
    expect(samples(text, 'mas_event_loop_delay_seconds', { thread: 'replies', stat: 'p99' })).toHaveLength(1);
    expect(samples(text, 'mas_event_loop_delay_seconds', { thread: 'projections', stat: 'p99' })).toHaveLength(1);
    // Outbound webhook deliveries run on a thread of their own, beside the replies rather than in their event loop.
    expect(samples(text, 'mas_event_loop_delay_seconds', { thread: 'webhooks', stat: 'p99' })).toHaveLength(1);
    expect(samples(text, 'mas_projection_lag_positions').map((s) => s.labels.projection).sort()).toEqual(allProjections.map((p) => p.name).sort());
    // Each metric family once: process metrics come from the main thread only, not twice.
    expect(text.match(/^# TYPE process_cpu_user_seconds_total /gm)).toHaveLength(1);
    expect(valueOf(text, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
  }, 60_000);
});
