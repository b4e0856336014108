import { HttpError } from './errors.js';

/**
 * A fixed-window counter per key (e.g. per email), alongside @fastify/rate-limit's per-IP limit: a
 * credential-stuffing run from many IPs against one account is still throttled.
 */
export function keyedLimiter(options: { max: number; windowMs: number }) {
  const hits = new Map<string, { count: number; resetAt: number }>();
  return function check(key: string, now = Date.now()): void {
    if (hits.size > 50_000) for (const [k, v] of hits) if (v.resetAt <= now) hits.delete(k);
    const entry = hits.get(key);
    if (!entry || entry.resetAt <= now) {
      hits.set(key, { count: 1, resetAt: now + options.windowMs });
      return;
    }
    entry.count++;
    if (entry.count > options.max) {
      throw new HttpError(429, 'RATE_LIMITED', 'Too many attempts for this account, try again later', Math.ceil((entry.resetAt - now) / 1000));
    }
  };
}
