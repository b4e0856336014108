import type { RateLimiter } from '../../ports/rateLimiter.js';

/**
 * Log entries written per integration per minute for deliveries whose signature did not verify. Anyone who
 * knows a webhook URL (integration ids are small sequential integers) can send those, and every entry is a
 * permanent event: unbounded, a flood grew the store by megabytes a second and buried the real deliveries.
 */
export const REJECTED_LOGGED_PER_MINUTE = 20;
const WINDOW_MS = 60_000;
/** Integrations whose unlogged rejections are being counted at once (ids are bounded by the store; this is a backstop). */
const MAX_COUNTED = 10_000;

export type RejectedLogAdmission =
  /** Log this one; `unloggedBefore` rejections of the integration were counted, not logged, since the last entry. */
  | { log: true; unloggedBefore: number }
  /** Count it only; `firstUnlogged` is the first of a run (worth one line in the server's log). */
  | { log: false; firstUnlogged: boolean };

/**
 * Decides which unauthenticated rejections get a webhook log entry: at most REJECTED_LOGGED_PER_MINUTE per
 * integration (through the service's rate limiter, so the limit holds across instances sharing NATS); the rest
 * are counted, and the count is told in the next entry that is logged.
 */
export function rejectedWebhookLog(limiter: RateLimiter) {
  const unlogged = new Map<number, number>();
  return {
    async admit(integrationId: number): Promise<RejectedLogAdmission> {
      // A limiter that cannot answer refuses: the bound matters more than one more entry.
      const allowed = await limiter
        .take(`webhook.rejected-log.${integrationId}`, { limit: REJECTED_LOGGED_PER_MINUTE, windowMs: WINDOW_MS })
        .catch(() => false);
      if (allowed) {
        const unloggedBefore = unlogged.get(integrationId) ?? 0;
        unlogged.delete(integrationId);
        return { log: true, unloggedBefore };
      }
      const count = (unlogged.get(integrationId) ?? 0) + 1;
      if (count === 1 && unlogged.size >= MAX_COUNTED) unlogged.delete(unlogged.keys().next().value!);
      unlogged.set(integrationId, count);
      return { log: false, firstUnlogged: count === 1 };
    },
  };
}

/** The note a logged rejection carries about the ones before it that were only counted. */
export const unloggedNote = (count: number) =>
  count > 0 ? ` (and ${count} earlier rejected ${count === 1 ? 'delivery' : 'deliveries'} counted but not logged: at most ${REJECTED_LOGGED_PER_MINUTE} a minute are)` : '';
