import argon2 from 'argon2';
import { DomainError } from '../../domain/errors.js';
import type { PasswordHasher } from '../../ports/passwordHasher.js';

/** OWASP Password Storage Cheat Sheet: argon2id, 19 MiB, 2 iterations, 1 lane. */
export const ARGON2_OPTIONS = { type: argon2.argon2id, memoryCost: 19 * 1024, timeCost: 2, parallelism: 1 } as const;

/**
 * Hashing is deliberately expensive, so concurrent hashes are capped (default: one per core minus one
 * left for the event loop) and the wait queue is bounded: a login flood gets 429s instead of starving
 * webhook handling of CPU.
 */
export function createArgonHasher(options: { maxConcurrent?: number; maxQueued?: number } = {}): PasswordHasher {
  const maxConcurrent = options.maxConcurrent ?? 1;
  const maxQueued = options.maxQueued ?? 64;
  let running = 0;
  const queue: (() => void)[] = [];

  async function limited<T>(work: () => Promise<T>): Promise<T> {
    if (running >= maxConcurrent) {
      if (queue.length >= maxQueued) throw new DomainError('RATE_LIMITED', 'Too many sign-in attempts in progress, try again shortly');
      await new Promise<void>((resolve) => queue.push(resolve));
    }
    running++;
    try {
      return await work();
    } finally {
      running--;
      queue.shift()?.();
    }
  }

  const dummyHash = argon2.hash(`dummy-${Math.random()}`, ARGON2_OPTIONS);
  return {
    hash: (password) => limited(() => argon2.hash(password, ARGON2_OPTIONS)),
    verify: (hash, password) => limited(() => argon2.verify(hash, password).catch(() => false)),
    verifyDummy: async (password) => {
      const hash = await dummyHash;
      await limited(() => argon2.verify(hash, password).catch(() => false));
    },
  };
}
