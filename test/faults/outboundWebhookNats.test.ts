import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startNatsServer, type NatsServerHandle } from '../support/natsServer.js';
import { companyWithEndpoint } from '../support/outboundCompany.js';
import { freePort, startServiceProcess, type ServiceProcess } from '../support/serviceProcess.js';
import { report } from '../support/storeCheck.js';
import { checkDeliveries, startVerifyingReceiver } from '../support/verifyingReceiver.js';

/**
 * Outbound webhooks in the NATS deployment: ROLE=api and ROLE=processor as separate processes on one data directory
 * and one nats-server. Deliveries run on the processor (over the public events read model, not over the bus), so the
 * test restarts both: nats-server killed and started again while deliveries are in flight, then the processor
 * SIGKILLed and started again. Deliveries resume each time; no public event is lost.
 */
const dataDir = mkdtempSync(join(tmpdir(), 'mas-fault-hooks-nats-'));
let nats: NatsServerHandle | undefined;
let receiver: Awaited<ReturnType<typeof startVerifyingReceiver>> | undefined;
let api: ServiceProcess | undefined;
let processor: ServiceProcess | undefined;

afterAll(async () => {
  await api?.kill('SIGKILL');
  await processor?.kill('SIGKILL');
  await nats?.stop();
  await receiver?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('fault: NATS restarted, then the processor killed, while outbound webhooks are delivered', () => {
  it('resumes deliveries after each and loses no public event', async () => {
    // Given an API process and a processor on one nats-server, and a company whose endpoint answers in 100 ms
    nats = await startNatsServer();
    receiver = await startVerifyingReceiver({ delayMs: 100 });
    const shared = { DATA_DIR: dataDir, NATS_URL: nats.url, ALLOW_PRIVATE_PLATFORM_URLS: 'true', WEBHOOK_POLL_MS: '50' };
    const processorPort = await freePort();
    processor = await startServiceProcess({ ...shared, ROLE: 'processor' }, processorPort);
    api = await startServiceProcess({ ...shared, ROLE: 'api' }, await freePort());
    const co = await companyWithEndpoint(api.base, receiver.url);
    receiver.arm(co.endpointSecret);
    const r = receiver;
    const post = async (phase: string, n: number) => {
      for (let i = 0; i < n; i++) expect(await co.post({ clientId: `${phase}-${i % 3}`, messageId: `${phase}-m${i}`, text: `${phase} question ${i}` })).toBe(200);
    };

    // When nats-server is killed and restarted while deliveries are in flight
    await post('before', 9);
    await expect.poll(() => r.received().length >= 3, { timeout: 30_000, interval: 10 }).toBe(true);
    const restarting = nats.restart({ downForMs: 2000 });
    await post('during-nats', 6); // stored in the event store: acknowledged while the bus is down
    await restarting;
    const afterNatsRestart = r.received().length;

    // and then the processor is SIGKILLed with a delivery held by the receiver, and started again
    await post('before-kill', 6);
    await expect.poll(() => r.received().length > afterNatsRestart && r.inFlight > 0, { timeout: 30_000, interval: 10 }).toBe(true);
    await processor.kill('SIGKILL');
    await post('processor-down', 6);
    processor = await startServiceProcess({ ...shared, ROLE: 'processor' }, processorPort);
    await post('after', 6);

    // Then every public event of the feed reaches the receiver, verified, in order per conversation
    const messages = 9 + 6 + 6 + 6 + 6;
    await expect.poll(async () => (await co.feed()).filter((e) => e.type === 'message.received').length, { timeout: 30_000, interval: 250 }).toBe(messages);
    await expect.poll(async () => checkDeliveries(await co.feed(), r.received()).missing.length, { timeout: 90_000, interval: 250 }).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 1000)); // late repeats would land now
    const feed = await co.feed();
    const check = checkDeliveries(feed, r.received());
    expect(check.missing).toEqual([]);
    expect(check.unknown).toEqual([]);
    expect(check.underSeveralIds).toEqual([]);
    expect(check.outOfOrder).toEqual([]);
    expect(r.rejected).toBe(0);
    report(
      `nats-server SIGKILLed and restarted after 2 s, then the processor SIGKILLed with a delivery in flight and restarted: ` +
        `all ${feed.length} public events (${messages} messages) delivered and verified, ${check.duplicated} twice under the same webhook-id, order per conversation kept`,
    );
  }, 240_000);
});
