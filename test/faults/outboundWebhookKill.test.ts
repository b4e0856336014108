import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { companyWithEndpoint } from '../support/outboundCompany.js';
import { report } from '../support/storeCheck.js';
import { freePort, startServiceProcess, type ServiceProcess } from '../support/serviceProcess.js';
import { checkDeliveries, startVerifyingReceiver } from '../support/verifyingReceiver.js';

/**
 * SIGKILL of the service (as npm start runs it, embedded defaults) while outbound webhook deliveries are in flight
 * to a slow receiver, then a restart on the same data directory. At least once: every public event reaches the
 * receiver, and an event that arrives twice (its answer was lost with the process) carries the same webhook-id.
 */
const MESSAGES = 24;
const CLIENTS = 6;
const dataDir = mkdtempSync(join(tmpdir(), 'mas-fault-hooks-kill-'));
let receiver: Awaited<ReturnType<typeof startVerifyingReceiver>> | undefined;
let proc: ServiceProcess | undefined;

afterAll(async () => {
  await proc?.kill('SIGKILL');
  await receiver?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('fault: SIGKILL while outbound webhook deliveries are in flight, then a restart on the same data', () => {
  it('delivers every public event at least once, a repeated one under the same webhook-id, in order per conversation', async () => {
    // Given a receiver that takes 200 ms to answer, and a company whose endpoint points at it
    receiver = await startVerifyingReceiver({ delayMs: 200 });
    const port = await freePort();
    const env = { DATA_DIR: dataDir, ALLOW_PRIVATE_PLATFORM_URLS: 'true', WEBHOOK_POLL_MS: '50' };
    proc = await startServiceProcess(env, port);
    const co = await companyWithEndpoint(proc.base, receiver.url);
    receiver.arm(co.endpointSecret);

    // When customers write and the service is killed while the receiver holds a delivery
    for (let i = 0; i < MESSAGES; i++) expect(await co.post({ clientId: `c-${i % CLIENTS}`, messageId: `hk-${i}`, text: `question ${i}` })).toBe(200);
    const r = receiver;
    await expect.poll(() => r.received().length >= 4 && r.inFlight > 0, { timeout: 30_000, interval: 10 }).toBe(true);
    const receivedBeforeKill = r.received().length;
    await proc.kill('SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 300)); // the held delivery is answered into a closed socket

    // Then, after a restart, every event of the feed arrives
    proc = await startServiceProcess(env, port);
    await expect.poll(async () => (await co.feed()).filter((e) => e.type === 'message.received').length, { timeout: 30_000, interval: 250 }).toBe(MESSAGES);
    await expect.poll(async () => checkDeliveries(await co.feed(), r.received()).missing.length, { timeout: 60_000, interval: 250 }).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 1000)); // late repeats would land now
    const feed = await co.feed();
    const check = checkDeliveries(feed, r.received());
    expect(check.missing).toEqual([]);
    expect(check.unknown).toEqual([]);
    expect(check.underSeveralIds).toEqual([]);
    expect(check.outOfOrder).toEqual([]);
    expect(r.rejected).toBe(0);
    // The delivery held at the kill was received but never acknowledged to the service: it came again.
    expect(check.duplicated).toBeGreaterThanOrEqual(1);
    report(
      `SIGKILL with a delivery in flight (${receivedBeforeKill} of ${feed.length} public events received before it), restart on the same DATA_DIR: ` +
        `all ${feed.length} delivered and verified, ${check.duplicated} delivered twice under the same webhook-id, order per conversation kept`,
    );
  }, 150_000);
});
