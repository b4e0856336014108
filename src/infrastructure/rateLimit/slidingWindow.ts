/**
 * The sliding window counter both RateLimiter adapters share (the algorithm is described in ports/rateLimiter.ts):
 * rule checks, which window a moment falls in, how many hits the two windows' counts still allow.
 */
import { MAX_LIMIT_KEY_LENGTH, type RateLimit } from '../../ports/rateLimiter.js';

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
