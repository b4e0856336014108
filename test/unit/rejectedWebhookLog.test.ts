import { describe, expect, it } from 'vitest';
import { REJECTED_LOGGED_PER_MINUTE, rejectedWebhookLog, unloggedNote } from '../../src/http/platformWebhooks/rejectedWebhookLog.js';
import { createMemoryRateLimiter } from '../../src/infrastructure/memory/memoryRateLimiter.js';
import type { RateLimiter } from '../../src/ports/rateLimiter.js';

/** Which rejected webhook deliveries get a log entry: a per-integration budget a minute; the rest are counted. */
describe('the rejected-delivery log budget', () => {
  const clock = () => {
    let t = 1_000_000_000_000;
    return { now: () => t, advance: (ms: number) => (t += ms) };
  };

  it(`logs ${REJECTED_LOGGED_PER_MINUTE} a minute per integration; the rest are counted, the first of a run flagged, and the count goes with the next entry logged`, async () => {
    const time = clock();
    const log = rejectedWebhookLog(createMemoryRateLimiter({ now: time.now }));
    const decisions = [];
    for (let i = 0; i < REJECTED_LOGGED_PER_MINUTE + 5; i++) decisions.push(await log.admit(7));
    expect(decisions.slice(0, REJECTED_LOGGED_PER_MINUTE)).toEqual(Array(REJECTED_LOGGED_PER_MINUTE).fill({ log: true, unloggedBefore: 0 }));
    expect(decisions.slice(REJECTED_LOGGED_PER_MINUTE)).toEqual([{ log: false, firstUnlogged: true }, ...Array(4).fill({ log: false, firstUnlogged: false })]);
    // Another integration has its own budget.
    expect(await log.admit(8)).toEqual({ log: true, unloggedBefore: 0 });
    // Two minutes on, the budget is back and the next entry carries the count.
    time.advance(120_000);
    expect(await log.admit(7)).toEqual({ log: true, unloggedBefore: 5 });
    expect(await log.admit(7)).toEqual({ log: true, unloggedBefore: 0 });
  });

  it('a limiter that fails refuses: the bound holds', async () => {
    const failing: RateLimiter = { take: () => Promise.reject(new Error('bus down')), close: async () => {} };
    expect(await rejectedWebhookLog(failing).admit(7)).toEqual({ log: false, firstUnlogged: true });
  });

  it('the note says how many were only counted, and what the limit is', () => {
    expect(unloggedNote(0)).toBe('');
    expect(unloggedNote(1)).toBe(` (and 1 earlier rejected delivery counted but not logged: at most ${REJECTED_LOGGED_PER_MINUTE} a minute are)`);
    expect(unloggedNote(230)).toContain('230 earlier rejected deliveries');
  });
});
