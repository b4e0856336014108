/**
 * The Bus contract against a real nats-server (Debian's /usr/sbin/nats-server, started here with -js on a free
 * port), plus what only the NATS adapter has: working() on long handlers, dead-lettering after an instance dies
 * on the last delivery, and surviving a server restart.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { busContract, sleep, uniqueName, waitFor } from './busContract.js';
import { startNatsServer, type NatsServerHandle } from '../support/natsServer.js';
import { jetstreamManager } from '@nats-io/jetstream';
import { connectNatsBus, consumerNameFor, type NatsBus, type NatsBusOptions } from '../../src/infrastructure/nats/natsBus.js';
import { deadLetterSubject, type BusMessage, type DeadLetter } from '../../src/ports/bus.js';
import { silentLogger, type Logger } from '../../src/ports/logger.js';

/** BUS_TEST_LOG=1 prints the adapter's log lines (debugging aid). */
const consoleLogger = (bindings: Record<string, unknown> = {}): Logger => {
  const line = (level: string) => (obj: object | string, msg?: string) => {
    const { err, ...rest } = (typeof obj === 'string' ? {} : obj) as { err?: unknown };
    const text = typeof obj === 'string' ? obj : msg;
    console.log(`[${level}] ${text ?? ''} ${JSON.stringify({ ...bindings, ...rest })}${err ? ` err=${String(err)}` : ''}`);
  };
  return { debug: line('debug'), info: line('info'), warn: line('warn'), error: line('error'), child: (b) => consoleLogger({ ...bindings, ...b }) };
};
const logger = process.env.BUS_TEST_LOG ? consoleLogger() : silentLogger;

let server: NatsServerHandle;

beforeAll(async () => {
  server = await startNatsServer();
});

afterAll(async () => {
  await server?.stop();
});

const connect = (options: Partial<NatsBusOptions> = {}) =>
  connectNatsBus({ servers: server.url, logger, ...options });

busContract('NATS JetStream', async () => {
  const bus = await connect();
  const all: NatsBus[] = [bus];
  return {
    bus,
    bus2: async () => {
      const other = await connect();
      all.push(other);
      return other;
    },
    cleanup: async () => {
      await Promise.all(all.map((b) => b.close()));
    },
  };
});

describe('NATS bus specifics', () => {
  it('keeps a long handler’s message from being redelivered by calling working() within ack_wait', async () => {
    const bus = await connect({ ackWaitMs: 1_000 });
    try {
      const subject = uniqueName('job.long');
      const deliveries: number[] = [];
      let done = false;
      await bus.subscribe(subject, { durable: 'w', backoffMs: [1_000] }, async (m) => {
        deliveries.push(m.deliveryCount);
        await sleep(2_600);
        done = true;
      });
      await bus.publish(subject, {}, { dedupeId: 'l-1' });
      await waitFor(() => done, 'the long handler', 10_000);
      await sleep(1_500);
      expect(deliveries).toEqual([1]);
    } finally {
      await bus.close();
    }
  });

  it('dead-letters a message whose last delivery never finished (its instance died) without calling a handler again', async () => {
    const subject = uniqueName('job.crash');
    const crashing = await connect({ ackWaitMs: 1_000 });
    const survivor = await connect({ ackWaitMs: 1_000 });
    try {
      const dead: BusMessage<DeadLetter>[] = [];
      await survivor.subscribe<DeadLetter>(deadLetterSubject(subject), { durable: 'dlq' }, async (m) => {
        dead.push(m);
      });
      let started = false;
      await crashing.subscribe(subject, { durable: 'w', maxDeliver: 1, backoffMs: [1_000] }, async () => {
        started = true;
        await new Promise(() => {}); // hangs until the instance "dies"
      });
      await survivor.publish(subject, { c: 1 }, { dedupeId: 'c-1' });
      await waitFor(() => started, 'the first delivery');
      await crashing.nc.close(); // the process dies: no ack, no nak

      const calls: number[] = [];
      await survivor.subscribe(subject, { durable: 'w', maxDeliver: 1, backoffMs: [1_000] }, async (m) => {
        calls.push(m.deliveryCount);
      });
      await waitFor(() => dead.length === 1, 'the dead letter', 10_000);
      expect(calls).toEqual([]);
      expect(dead[0]!.data).toMatchObject({ subject, durable: 'w', data: { c: 1 }, dedupeId: 'c-1', deliveryCount: 2 });
      expect(dead[0]!.data.error).toMatch(/exceeds maxDeliver 1/);
    } finally {
      // not crashing.close(): it would wait forever for the hung handler
      await survivor.close();
    }
  });

  it('keeps consuming across a nats-server restart (same store) and reports the connection state', async () => {
    const bus = await connect();
    try {
      const subject = uniqueName('job.restart');
      const received: number[] = [];
      await bus.subscribe<{ i: number }>(subject, { durable: 'w' }, async (m) => void received.push(m.data.i));
      await bus.publish(subject, { i: 1 }, { dedupeId: 'rs-1' });
      await waitFor(() => received.length === 1, 'the message before the restart');

      await server.restart();
      await waitFor(() => bus.isConnected(), 'the reconnection', 15_000);
      await bus.publish(subject, { i: 2 }, { dedupeId: 'rs-2' });
      // A pull request in flight when the server went away is only replaced once it expires (fetchExpiresMs, 10 s).
      await waitFor(() => received.length === 2, 'the message after the restart', 30_000);
      expect(received).toEqual([1, 2]);
    } finally {
      await bus.close();
    }
  }, 60_000);
  it('survives a 3 s outage of the server and reports disconnected meanwhile', async () => {
    const bus = await connect();
    try {
      const subject = uniqueName('job.outage');
      const received: number[] = [];
      await bus.subscribe<{ i: number }>(subject, { durable: 'w' }, async (m) => void received.push(m.data.i));
      await bus.publish(subject, { i: 1 }, { dedupeId: 'o-1' });
      await waitFor(() => received.length === 1, 'the message before the outage');

      const restarted = server.restart({ downForMs: 3_000 });
      await waitFor(() => !bus.isConnected(), 'the disconnection');
      await restarted;
      await waitFor(() => bus.isConnected(), 'the reconnection', 15_000);
      await bus.publish(subject, { i: 2 }, { dedupeId: 'o-2' });
      await waitFor(() => received.length === 2, 'the message after the outage', 30_000);
      expect(received).toEqual([1, 2]);
    } finally {
      await bus.close();
    }
  }, 60_000);

  it('recreates its consumer when it is deleted from under a running subscription', async () => {
    const bus = await connect();
    try {
      const subject = uniqueName('job.deleted');
      const received: number[] = [];
      await bus.subscribe<{ i: number }>(subject, { durable: 'w' }, async (m) => void received.push(m.data.i));
      await bus.publish(subject, { i: 1 }, { dedupeId: 'del-1' });
      await waitFor(() => received.length === 1, 'the first message');
      const jsm = await jetstreamManager(bus.nc);
      await jsm.consumers.delete(bus.settings.streamName, consumerNameFor(subject, 'w'));
      await bus.publish(subject, { i: 2 }, { dedupeId: 'del-2' });
      // the recreated consumer reads the stream from its look-back (15 min), so 1 comes again (handlers are idempotent)
      await waitFor(() => received.includes(2), 'the message after the deletion', 15_000);
    } finally {
      await bus.close();
    }
  });

  it('bounds the job stream by bytes as well as age, and a new durable does not replay jobs older than its look-back', async () => {
    const bus = await connect({ newDurableLookbackMs: 1_000 });
    try {
      const jsm = await jetstreamManager(bus.nc);
      const stream = await jsm.streams.info(bus.settings.streamName);
      expect(stream.config.max_bytes).toBe(1024 ** 3);
      expect(stream.config.max_age).toBe(7 * 24 * 3_600_000 * 1_000_000);

      const subject = uniqueName('job.lookback');
      const first: number[] = [];
      await bus.subscribe<{ i: number }>(subject, { durable: 'first' }, async (m) => void first.push(m.data.i));
      for (const i of [1, 2, 3]) await bus.publish(subject, { i }, { dedupeId: `lb-${i}` });
      await waitFor(() => first.length === 3, 'the jobs handled by the first durable');
      await sleep(1_500);

      // A durable created now (a new worker, a renamed durable, a consumer deleted from under it) starts at the
      // look-back, not at the beginning of the stream: the jobs handled 1.5 s ago are not handled again.
      const second: number[] = [];
      await bus.subscribe<{ i: number }>(subject, { durable: 'second' }, async (m) => void second.push(m.data.i));
      await bus.publish(subject, { i: 4 }, { dedupeId: 'lb-4' });
      await waitFor(() => second.includes(4), 'the new job on the new durable');
      await sleep(300);
      expect(second).toEqual([4]);
    } finally {
      await bus.close();
    }
  });

  it('updates the stream and the consumer when settings change', async () => {
    const subject = uniqueName('job.settings');
    const first = await connect();
    const handler = async () => {};
    const sub = await first.subscribe(subject, { durable: 'w', maxDeliver: 2, backoffMs: [100] }, handler);
    await sub.stop();
    await first.close();

    const second = await connect({ duplicateWindowMs: 60_000, ackWaitMs: 5_000 });
    try {
      await second.subscribe(subject, { durable: 'w', maxDeliver: 4, backoffMs: [100, 10_000] }, handler);
      const jsm = await jetstreamManager(second.nc);
      const stream = await jsm.streams.info(second.settings.streamName);
      expect(stream.config.duplicate_window).toBe(60_000 * 1_000_000);
      const consumerName = consumerNameFor(subject, 'w');
      const consumer = await jsm.consumers.info(second.settings.streamName, consumerName);
      expect(consumer.config.max_deliver).toBeGreaterThan(4);
      expect(consumer.config.backoff).toEqual([5_000 * 1_000_000, 10_000 * 1_000_000]);
      expect(consumer.config.filter_subject).toBe(second.jobSubject(subject));

      // a first backoff longer than ack_wait, then no backoff at all
      await second.subscribe(subject, { durable: 'w', maxDeliver: 2, backoffMs: [8_000] }, handler);
      const longer = await jsm.consumers.info(second.settings.streamName, consumerName);
      expect(longer.config.backoff).toEqual([8_000 * 1_000_000]);
      await second.subscribe(subject, { durable: 'w', maxDeliver: 2, backoffMs: [] }, handler);
      const none = await jsm.consumers.info(second.settings.streamName, consumerName);
      expect(none.config.backoff ?? []).toEqual([]);
      expect(none.config.ack_wait).toBe(5_000 * 1_000_000);
    } finally {
      await second.close();
      // put the default window back for the other tests
      await (await connect()).close();
    }
  });
});
