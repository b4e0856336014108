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
