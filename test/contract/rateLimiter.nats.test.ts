/**
 * The RateLimiter contract against a real nats-server (started here with -js on a free port), plus what only the
 * NATS adapter has: the in-memory fallback while NATS is away, and the counters' stream coming back after a
 * restart of the server.
 */
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openNatsRateLimiter, type NatsRateLimiterOptions } from '../../src/infrastructure/nats/natsRateLimiter.js';
import { silentLogger, type Logger } from '../../src/ports/logger.js';
import { startNatsServer, type NatsServerHandle } from '../support/natsServer.js';
import { rateLimiterContract, TestClock } from './rateLimiterContract.js';

let server: NatsServerHandle;
const consoleLogger: Logger = {
  debug: () => {},
  info: (o, m) => console.log('info', m, o),
  warn: (o, m) => console.log('warn', m, String((o as { err?: unknown }).err)),
  error: (o, m) => console.log('error', m, o),
  child: () => consoleLogger,
};

beforeAll(async () => {
  server = await startNatsServer();
});
afterAll(async () => {
  await server?.stop();
});

async function openLimiter(options: Partial<NatsRateLimiterOptions> = {}) {
  const nc = await connect({ servers: server.url, maxReconnectAttempts: -1, reconnectTimeWait: 200 });
  const limiter = await openNatsRateLimiter({ nc, logger: process.env.LIMITER_TEST_LOG ? consoleLogger : silentLogger, ...options });
  return { nc, limiter };
}

rateLimiterContract('NATS JetStream', async (clock) => {
  const connections: NatsConnection[] = [];
  const first = await openLimiter({ now: clock.now });
  connections.push(first.nc);
  const limiters = [first.limiter];
  return {
    limiter: first.limiter,
    another: async () => {
      const other = await openLimiter({ now: clock.now });
      connections.push(other.nc);
      limiters.push(other.limiter);
      return other.limiter;
    },
    cleanup: async () => {
      await Promise.all(limiters.map((l) => l.close()));
      await Promise.all(connections.map((nc) => nc.close()));
    },
  };
});

describe('NATS rate limiter specifics', () => {
  it('counts in this instance while NATS is away (answering within the timeout), and shares counters again after the restart', async () => {
    const clock = new TestClock();
    const { nc, limiter } = await openLimiter({ now: clock.now, timeoutMs: 300, fallbackMs: 500 });
    try {
      const rule = { limit: 3, windowMs: 60_000 };
      expect(await limiter.take('before', rule)).toBe(true);

      const restarted = server.restart({ downForMs: 2_000 });
      await new Promise((r) => setTimeout(r, 200));
      const started = Date.now();
      const during = [];
      for (let i = 0; i < 4; i++) during.push(await limiter.take('during', rule));
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(during).toEqual([true, true, true, false]);
      await restarted;

      // The memory stream died with the server: the limiter makes it again and the counters are shared once more.
      await new Promise((r) => setTimeout(r, 1_000));
      const other = await openLimiter({ now: clock.now });
      try {
        const after = [];
        for (let i = 0; i < 4; i++) after.push(await (i % 2 ? other.limiter : limiter).take('after', rule));
        expect(after).toEqual([true, true, true, false]);
      } finally {
        await other.limiter.close();
        await other.nc.close();
      }
    } finally {
      await limiter.close();
      await nc.close();
    }
  });
});
