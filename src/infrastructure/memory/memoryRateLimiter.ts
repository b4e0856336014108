/**
 * The embedded RateLimiter: sliding window counters (see ports/rateLimiter.ts) in this process's memory. Each
 * instance counts only what it sees; with NATS_URL the NATS adapter shares the counts instead. Counters of
 * keys idle for two windows are dropped by a sweep every `sweepMs` (default 60 s).
 */
import type { RateLimit, RateLimiter } from '../../ports/rateLimiter.js';
import { assertValidRateLimit, hitsAllowed, windowAt } from '../rateLimit/slidingWindow.js';

interface Counter {
  windowMs: number;
  index: number;
  current: number;
  previous: number;
}

export interface MemoryRateLimiterOptions {
  now?: () => number;
  sweepMs?: number;
}

export interface MemoryRateLimiter extends RateLimiter {
  /** The same decision as take(), synchronously (the embedded counters need no I/O). */
  takeNow(key: string, rule: RateLimit): boolean;
}

export function createMemoryRateLimiter(options: MemoryRateLimiterOptions = {}): MemoryRateLimiter {
  const now = options.now ?? Date.now;
  // Keyed by rule too: the same key under two different rules keeps two independent counters.
  const counters = new Map<string, Counter>();
  const sweep = setInterval(() => {
    const t = now();
    for (const [k, c] of counters) if (windowAt(t, c.windowMs).index - c.index > 1) counters.delete(k);
  }, options.sweepMs ?? 60_000);
  sweep.unref();

  function takeNow(key: string, rule: RateLimit): boolean {
    assertValidRateLimit(key, rule);
    const { index, elapsed } = windowAt(now(), rule.windowMs);
    const id = `${rule.limit}/${rule.windowMs}/${key}`;
    let c = counters.get(id);
    if (!c) {
      c = { windowMs: rule.windowMs, index, current: 0, previous: 0 };
      counters.set(id, c);
    } else if (c.index !== index) {
      c.previous = c.index === index - 1 ? c.current : 0;
      c.current = 0;
      c.index = index;
    }
    if (hitsAllowed(rule, c.previous, c.current, elapsed) < 1) return false;
    c.current++;
    return true;
  }

  return {
    takeNow,
    async take(key, rule) {
      return takeNow(key, rule);
    },
    async close() {
      clearInterval(sweep);
      counters.clear();
    },
  };
}
