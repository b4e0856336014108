import { createMemoryRateLimiter } from '../../src/infrastructure/memory/memoryRateLimiter.js';
import { rateLimiterContract } from './rateLimiterContract.js';

// The embedded limiter counts within one process: "another instance" is the same limiter.
rateLimiterContract('in-memory', async (clock) => {
  const limiter = createMemoryRateLimiter({ now: clock.now });
  return { limiter, another: async () => limiter, cleanup: () => limiter.close() };
});
