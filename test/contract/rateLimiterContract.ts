/**
 * The RateLimiter contract: the in-memory and the NATS adapter decide alike. Each test uses its own keys, so a
 * fixture may share one server across tests. Times are driven by the fixture's clock (`now`), so window
 * boundaries are exact.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { RateLimiter } from '../../src/ports/rateLimiter.js';

export interface RateLimiterFixture {
  limiter: RateLimiter;
  /** Another instance sharing the counters (NATS: a separate connection); the same limiter when there is none. */
  another(): Promise<RateLimiter>;
  cleanup(): Promise<void>;
}

/** A clock the test moves; starts at a window boundary of every window length used here. */
export class TestClock {
  t = 1_800_000_000_000;
  now = () => this.t;
  advance(ms: number) {
    this.t += ms;
  }
}

let counter = 0;
const uniqueKey = (base: string) => `${base}:${Date.now().toString(36)}-${counter++}-${Math.random().toString(36).slice(2, 6)}`;

const takeMany = (limiter: RateLimiter, key: string, rule: { limit: number; windowMs: number }, n: number) =>
  Promise.all(Array.from({ length: n }, () => limiter.take(key, rule)));
const granted = (results: boolean[]) => results.filter(Boolean).length;

export function rateLimiterContract(name: string, factory: (clock: TestClock) => Promise<RateLimiterFixture>): void {
  describe(`RateLimiter contract: ${name}`, () => {
    let fixture: RateLimiterFixture | undefined;
    const open = async () => {
      const clock = new TestClock();
      fixture = await factory(clock);
      return { clock, ...fixture };
    };
    afterEach(async () => {
      await fixture?.cleanup();
      fixture = undefined;
    });

    it('allows `limit` hits in a window and refuses the next ones without counting them', async () => {
      const { limiter, clock } = await open();
      const key = uniqueKey('ip:203.0.113.7');
      const rule = { limit: 3, windowMs: 60_000 };
      const results: boolean[] = [];
      for (let i = 0; i < 5; i++) results.push(await limiter.take(key, rule));
      expect(results).toEqual([true, true, true, false, false]);
      // Two windows later nothing of this counts any more: refused hits did not push the limit further out.
      clock.advance(120_000);
      expect(await takeMany(limiter, key, rule, 4)).toEqual([true, true, true, false]);
    });

    it('keeps keys, and one key under different rules, apart', async () => {
      const { limiter } = await open();
      const a = uniqueKey('integration:1');
      const b = uniqueKey('integration:2');
      const rule = { limit: 2, windowMs: 10_000 };
      expect(granted(await takeMany(limiter, a, rule, 4))).toBe(2);
      expect(granted(await takeMany(limiter, b, rule, 4))).toBe(2);
      expect(granted(await takeMany(limiter, a, { limit: 5, windowMs: 10_000 }, 6))).toBe(5);
    });

    it('slides: the previous window counts for the part of it still inside the last windowMs', async () => {
      const { limiter, clock } = await open();
      const key = uniqueKey('slide');
      const rule = { limit: 4, windowMs: 1_000 };
      expect(granted(await takeMany(limiter, key, rule, 6))).toBe(4);
      clock.advance(1_250); // 75 % of the previous window's 4 hits still count: 3, so 1 more
      expect(granted(await takeMany(limiter, key, rule, 3))).toBe(1);
      clock.advance(1_000); // 50 % of 1 → 0.5 still counts: floor(4 - 0.5) = 3 more
      expect(granted(await takeMany(limiter, key, rule, 5))).toBe(3);
      clock.advance(2_000); // two windows later: the full limit again
      expect(granted(await takeMany(limiter, key, rule, 5))).toBe(4);
    });

    it('grants exactly `limit` of many concurrent hits, spread over two instances', async () => {
      const { limiter, another } = await open();
      const second = await another();
      const key = uniqueKey('burst');
      const rule = { limit: 25, windowMs: 60_000 };
      const results = await Promise.all(Array.from({ length: 80 }, (_, i) => (i % 2 ? second : limiter).take(key, rule)));
      expect(granted(results)).toBe(25);
      expect(await limiter.take(key, rule)).toBe(false);
      expect(await second.take(key, rule)).toBe(false);
    });

    it('rejects an empty key and a limit or window below 1', async () => {
      const { limiter } = await open();
      await expect(limiter.take('', { limit: 1, windowMs: 1_000 })).rejects.toThrow(RangeError);
      await expect(limiter.take('k', { limit: 0, windowMs: 1_000 })).rejects.toThrow(RangeError);
      await expect(limiter.take('k', { limit: 1, windowMs: 0 })).rejects.toThrow(RangeError);
    });
  });
}
