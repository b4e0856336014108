import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPILED_MAIN, healthyAfter, logLines, startCompiled, type CompiledServer } from '../support/compiledServer.js';
import { eventually } from '../support/eventually.js';
import { startFakePlatform, type FakePlatform } from '../support/fakePlatform.js';
import { wireCompany } from '../support/faultFixtures.js';
import { freePort } from '../support/serviceProcess.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhookReceiver.js';

/**
 * The main message flow on what `npm start` runs: a signed platform webhook is acknowledged by the HTTP thread,
 * answered on the processor thread, sent back to the platform, and told to the company's own endpoint by the
 * outbound-webhooks thread. Each thread starts from its compiled entry (dist has no TypeScript to fall back to).
 */
const PLATFORM_TOKEN = 'platform-token-compiled';
let platform: FakePlatform;
let receiver: WebhookReceiver;
let dataDir: string;
let proc: CompiledServer;
let base: string;

beforeAll(async () => {
  if (!existsSync(COMPILED_MAIN)) throw new Error(`${COMPILED_MAIN} is missing: run npm run build (npm test's pretest does)`);
  platform = await startFakePlatform({ token: PLATFORM_TOKEN });
  receiver = await startWebhookReceiver();
  dataDir = mkdtempSync(join(tmpdir(), 'mas-prod-replies-'));
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  proc = startCompiled({ PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, NODE_ENV: 'development', ALLOW_PRIVATE_PLATFORM_URLS: 'true', REPLY_BURST_WINDOW_MS: '0' });
  await healthyAfter(proc, base, 30_000);
  // Not expect.poll: vitest refuses it outside a test, which failed the whole suite before it ran.
  await eventually(async () => expect((await fetch(`${base}/readyz`)).status).toBe(200), 20_000, 50);
}, 60_000);

afterAll(async () => {
  proc?.child.kill('SIGKILL');
  await platform?.close();
  await receiver?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('the compiled server answers a customer and tells the company (npm start)', () => {
  it('a platform webhook is answered through the platform, and the endpoint receives the message and its answer, signed', async () => {
    const company = await wireCompany(base, { platformUrl: platform.url, platformToken: PLATFORM_TOKEN, kb: 'Returns: within 30 days of delivery.' });
    const created = await company.call('POST', '/api/webhook-endpoints', { url: receiver.url, eventTypes: ['message.received', 'message.answered'] });
    expect(created.status).toBe(201);
    receiver.setSecrets([created.body.secret]);

    expect(await company.post({ clientId: 'compiled-1', messageId: 'compiled-m1', text: 'What are your returns rules?' })).toBe(200);
    await platform.waitForMessages(1, 30_000);
    expect(platform.messages()[0]).toMatchObject({ client_id: 'compiled-1', type: 'to_client' });
    expect(String(platform.messages()[0]!.text)).toMatch(/30 days/);

    await eventually(() => expect(receiver.received.map((r) => r.event.type).sort()).toEqual(['message.answered', 'message.received']), 30_000);
    expect(receiver.received.every((r) => r.verifiedWith.length === 1)).toBe(true);
    expect(receiver.received.find((r) => r.event.type === 'message.received')!.event.data).toMatchObject({ text: 'What are your returns rules?' });
    expect(logLines(proc.output()).filter((l) => l.level >= 50)).toEqual([]);
  }, 90_000);
});
