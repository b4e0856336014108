import type { AccessTokens } from '../ports/accessTokens.js';
import type { Clock } from '../ports/clock.js';
import type { EventStore } from '../ports/eventStore.js';
import type { Logger } from '../ports/logger.js';
import type { PasswordHasher } from '../ports/passwordHasher.js';

/** What every command needs from the composition root (the ports themselves live in src/ports). */
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
