/**
 * The rate limiter port: counts hits per key and says whether one more is allowed. The embedded adapter counts
 * in this process; the NATS adapter shares the counts between every instance connected to one NATS, so a limit
 * holds for the whole cluster.
 *
 * Both adapters use the same "sliding window counter": a counter per key per fixed window of `windowMs`, and a
 * hit is allowed while `previous window × (share of the current window not yet elapsed) + current window` stays
 * below the limit. That follows a true sliding window closely (a burst straddling a window boundary cannot get
 * twice the limit through) with two numbers per key, which is what a shared store can update atomically.
 */
export interface RateLimit {
  /** Hits allowed per window, at least 1. */
  limit: number;
  /** Window length, at least 1 ms. */
  windowMs: number;
}

export interface RateLimiter {
  /**
   * Counts one hit on `key` and resolves true when it is within `rule`; resolves false — and counts nothing —
   * when the key is already at its limit. Keys are any non-empty string up to MAX_LIMIT_KEY_LENGTH characters.
   */
  take(key: string, rule: RateLimit): Promise<boolean>;
  close(): Promise<void>;
}

export const MAX_LIMIT_KEY_LENGTH = 300;

export function assertValidRateLimit(key: string, rule: RateLimit): void {
  if (key.length === 0 || key.length > MAX_LIMIT_KEY_LENGTH) throw new RangeError(`a rate-limit key is 1-${MAX_LIMIT_KEY_LENGTH} characters`);
  if (!Number.isInteger(rule.limit) || rule.limit < 1) throw new RangeError(`limit must be an integer >= 1, got ${rule.limit}`);
  if (!Number.isInteger(rule.windowMs) || rule.windowMs < 1) throw new RangeError(`windowMs must be an integer >= 1, got ${rule.windowMs}`);
}

/** Which fixed window `now` falls in, and how much of it has elapsed (0 ≤ elapsed < 1). */
export function windowAt(now: number, windowMs: number): { index: number; elapsed: number } {
  const index = Math.floor(now / windowMs);
  return { index, elapsed: (now - index * windowMs) / windowMs };
}

/**
 * How many more hits the sliding window counter allows now, given the previous and the current window's counts.
 * Rounded down, so the estimate never lets more through than the limit.
 */
export function hitsAllowed(rule: RateLimit, previous: number, current: number, elapsed: number): number {
  return Math.max(0, Math.floor(rule.limit - previous * (1 - elapsed) - current));
}
