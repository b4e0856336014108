import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startNatsServer, type NatsServerHandle } from '../support/natsServer.js';
import { companyWithEndpoint } from '../support/outboundCompany.js';
import { samples } from '../support/prometheus.js';
import { freePort, startServiceProcess, type ServiceProcess } from '../support/serviceProcess.js';
import { report } from '../support/storeCheck.js';
import { checkDeliveries, startVerifyingReceiver } from '../support/verifyingReceiver.js';

/**
 * Two processors (ROLE=processor) on one nats-server and one data directory share the outbound webhook endpoints:
 * each endpoint is served by one of them, so an event reaches each endpoint once. Then one of them is SIGKILLed
 * while it holds a delivery: the other takes its endpoints, and no public event is lost (what it had delivered
 * but not recorded goes again, under the same webhook-id).
 */
const COMPANIES = 10;
const dataDir = mkdtempSync(join(tmpdir(), 'mas-fault-hooks-shared-'));
let nats: NatsServerHandle | undefined;
const receivers: Awaited<ReturnType<typeof startVerifyingReceiver>>[] = [];
const processes: ServiceProcess[] = [];

afterAll(async () => {
  for (const p of processes) await p.kill('SIGKILL');
  await nats?.stop();
  for (const r of receivers) await r.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** The endpoints a processor made delivery attempts to, from its /metrics. */
async function endpointsServedBy(p: ServiceProcess): Promise<Set<string>> {
  const text = await (await fetch(`${p.base}/metrics`)).text();
  return new Set(samples(text, 'mas_outbound_webhook_attempts', { outcome: 'delivered' }).filter((s) => s.value > 0).map((s) => s.labels.endpoint!));
}

describe('fault: two processors share the outbound webhook endpoints, then one is SIGKILLed', () => {
  it('delivers each event once per endpoint while both run, and loses none when one is killed', async () => {
    // Given an API process and two processors on one nats-server, and companies whose endpoints answer in 100 ms
    nats = await startNatsServer();
    const shared = { DATA_DIR: dataDir, NATS_URL: nats.url, ALLOW_PRIVATE_PLATFORM_URLS: 'true', WEBHOOK_POLL_MS: '50' };
    const one = await startServiceProcess({ ...shared, ROLE: 'processor' }, await freePort());
    const two = await startServiceProcess({ ...shared, ROLE: 'processor' }, await freePort());
    const api = await startServiceProcess({ ...shared, ROLE: 'api' }, await freePort());
    processes.push(one, two, api);
    const companies: { co: Awaited<ReturnType<typeof companyWithEndpoint>>; receiver: (typeof receivers)[number]; endpointId: string }[] = [];
    for (let c = 0; c < COMPANIES; c++) {
      const receiver = await startVerifyingReceiver({ delayMs: 100 });
      receivers.push(receiver);
      const co = await companyWithEndpoint(api.base, receiver.url);
      receiver.arm(co.endpointSecret);
      companies.push({ co, receiver, endpointId: co.endpointId });
    }
    const post = async (phase: string, n: number) => {
      for (const [c, { co }] of companies.entries()) for (let i = 0; i < n; i++) expect(await co.post({ clientId: `${phase}-${i % 2}`, messageId: `${phase}-${c}-m${i}`, text: `${phase} question ${i}` })).toBe(200);
    };
    const allDelivered = async () => {
      for (const { co, receiver } of companies) if (checkDeliveries(await co.feed(), receiver.received()).missing.length > 0) return false;
      return true;
    };

    // When customers write while both processors run
    await post('both', 4);
    await expect.poll(allDelivered, { timeout: 60_000, interval: 250 }).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 1000)); // a second delivery would land now

    // Then each endpoint got each event once, and each endpoint was served by one processor, both processors serving some
    let delivered = 0;
    for (const { co, receiver } of companies) {
      const check = checkDeliveries(await co.feed(), receiver.received());
      expect(check).toMatchObject({ missing: [], unknown: [], underSeveralIds: [], outOfOrder: [], duplicated: 0 });
      delivered += receiver.received().length;
    }
    const [byOne, byTwo] = [await endpointsServedBy(one), await endpointsServedBy(two)];
    expect(byOne.size).toBeGreaterThan(0);
    expect(byTwo.size).toBeGreaterThan(0);
    expect([...byOne].filter((id) => byTwo.has(id))).toEqual([]);
    expect(byOne.size + byTwo.size).toBe(COMPANIES);

    // When the first processor is SIGKILLed while one of its endpoints' receivers holds a delivery
    const itsReceivers = companies.filter((c) => byOne.has(c.endpointId)).map((c) => c.receiver);
    const posting = post('kill', 6);
    await expect.poll(() => itsReceivers.some((r) => r.inFlight > 0), { timeout: 30_000, interval: 5 }).toBe(true);
    const killedAt = Date.now();
    await one.kill('SIGKILL');
    await posting;
    await post('after', 3);

    // Then the second one takes its endpoints: every public event reaches its endpoint, verified, in order per conversation
    await expect.poll(allDelivered, { timeout: 90_000, interval: 250 }).toBe(true);
    const tookOverIn = Date.now() - killedAt;
    await new Promise((resolve) => setTimeout(resolve, 1000));
    let duplicated = 0;
    for (const { co, receiver } of companies) {
      const check = checkDeliveries(await co.feed(), receiver.received());
      expect(check).toMatchObject({ missing: [], unknown: [], underSeveralIds: [], outOfOrder: [] });
      expect(receiver.rejected).toBe(0);
      duplicated += check.duplicated;
    }
    expect((await endpointsServedBy(two)).size).toBe(COMPANIES);
    report(
      `two processors on NATS: ${delivered} deliveries to ${COMPANIES} endpoints (${byOne.size} / ${byTwo.size} per processor), none twice; ` +
        `one SIGKILLed with a delivery in flight: the other served all ${COMPANIES}, every event delivered within ${(tookOverIn / 1000).toFixed(1)} s, ${duplicated} twice under the same webhook-id`,
    );
  }, 240_000);
});

