import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createInProcessBus } from '../../../../src/infrastructure/memory/inProcessBus.js';
import { silentLogger } from '../../../../src/ports/logger.js';
import { ownerOf, startEndpointOwners, type EndpointOwners } from '../../../../src/workers/outboundWebhooks/webhookOwners.js';

/** Which processor serves which outbound webhook endpoint: processors meet on the bus and share the endpoints. */
const HEARTBEAT_MS = 100;
const endpoints = Array.from({ length: 200 }, () => randomUUID());
const started: EndpointOwners[] = [];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

afterEach(async () => {
  for (const o of started.splice(0)) await o.stop();
});

async function processor(bus: ReturnType<typeof createInProcessBus>, id: string) {
  const owners = await startEndpointOwners({ bus, instanceId: id, heartbeatMs: HEARTBEAT_MS, logger: silentLogger });
  started.push(owners);
  return owners;
}

describe('endpoint owners', () => {
  it('given the same members, every processor names the same owner, and the endpoints spread over them', () => {
    const members = ['p-a', 'p-b', 'p-c'];
    const owners = endpoints.map((e) => ownerOf(members, e));
    expect(endpoints.map((e) => ownerOf([...members].reverse(), e))).toEqual(owners);
    for (const m of members) expect(owners.filter((o) => o === m).length).toBeGreaterThan(endpoints.length / 6);
    // When one leaves, only its endpoints move.
    const without = endpoints.map((e) => ownerOf(['p-a', 'p-c'], e));
    endpoints.forEach((_, i) => {
      if (owners[i] !== 'p-b') expect(without[i]).toBe(owners[i]);
    });
  });

  it('given two processors on one bus, when both run, then each endpoint is served by exactly one of them', async () => {
    const bus = createInProcessBus();
    const a = await processor(bus, 'p-a');
    const b = await processor(bus, 'p-b');
    await sleep(HEARTBEAT_MS);
    expect(a.members()).toEqual(['p-a', 'p-b']);
    expect(b.members()).toEqual(['p-a', 'p-b']);
    const servedByA = endpoints.filter((e) => a.owns(e));
    const servedByB = endpoints.filter((e) => b.owns(e));
    expect(servedByA.length).toBeGreaterThan(0);
    expect(servedByB.length).toBeGreaterThan(0);
    expect([...servedByA, ...servedByB].sort()).toEqual([...endpoints].sort());
  });

  it('given two processors, when one goes silent (killed), then after three heartbeats the other serves every endpoint', async () => {
    const bus = createInProcessBus();
    const a = await processor(bus, 'p-a');
    const b = await processor(bus, 'p-b');
    await sleep(HEARTBEAT_MS);
    const versionBefore = a.version();
    expect(endpoints.every((e) => a.owns(e))).toBe(false);
    // A killed processor says nothing more: its heartbeats stop reaching the bus, without a goodbye.
    const send = bus.broadcast.bind(bus);
    bus.broadcast = async (subject, data) => ((data as { id?: string } | null)?.id === 'p-b' ? undefined : send(subject, data));
    await sleep(HEARTBEAT_MS * 4 + 50);
    expect(a.members()).toEqual(['p-a']);
    expect(a.version()).toBeGreaterThan(versionBefore);
    expect(endpoints.every((e) => a.owns(e))).toBe(true);
  });

  it('given a processor that stops, then the other takes its endpoints at once (it said goodbye)', async () => {
    const bus = createInProcessBus();
    const a = await processor(bus, 'p-a');
    const b = await processor(bus, 'p-b');
    await sleep(HEARTBEAT_MS);
    started.splice(started.indexOf(b), 1);
    await b.stop();
    await sleep(10);
    expect(endpoints.every((e) => a.owns(e))).toBe(true);
  });

  it('a processor just started serves nothing until the others had the time to answer', async () => {
    const bus = createInProcessBus();
    const a = await processor(bus, 'p-a');
    expect(a.owns(endpoints[0]!)).toBe(false);
    await sleep(HEARTBEAT_MS);
    expect(a.owns(endpoints[0]!)).toBe(true);
  });
});
