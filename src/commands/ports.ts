import type { EventStore } from '../ports/eventStore.js';
import type { Logger } from '../ports/logger.js';

export interface Clock {
  now(): Date;
}
export const systemClock: Clock = { now: () => new Date() };

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(hash: string, password: string): Promise<boolean>;
  /** Same cost as verify, against a hash no password matches: keeps "unknown email" as slow as "wrong password". */
  verifyDummy(password: string): Promise<void>;
}

export interface AccessClaims {
  userId: string;
  companyId: string;
  companyKey: number;
  sessionId: string;
}

export interface AccessTokens {
  /** expiresAt in seconds since the epoch. */
  issue(claims: AccessClaims): Promise<{ token: string; expiresAt: number }>;
  /** Throws on any invalid token (algorithm, issuer, audience, expiry, signature, shape). */
  verify(token: string): Promise<AccessClaims>;
}

export interface CommandDeps {
  eventStore: EventStore;
  clock: Clock;
  logger: Logger;
}

export interface AuthDeps extends CommandDeps {
  hasher: PasswordHasher;
  tokens: AccessTokens;
  refreshTokenTtlMs: number;
  /** A rotated refresh token presented again this soon is a concurrent refresh, not a replay. */
  refreshReuseGraceMs: number;
  /** Server key from which rotated refresh tokens are derived (see refreshSession). */
  refreshTokenKey: Uint8Array;
}

/** Encrypts secrets (webhook secrets, platform and LLM API keys) before they enter an event. */
export interface SecretBox {
  seal(plain: string): string;
  open(sealed: string): string;
}
