import { z } from 'zod';

/**
 * A login session (not the AI session of a conversation) is a refresh-token family (RFC 9700 §4.14): each refresh rotates the token; presenting
 * a token that was already rotated away means it leaked, so the whole family is revoked.
 * Except within a short grace window after its rotation: two tabs refreshing with one token at the same
 * moment are a race, not a theft, so the late one is answered with the family's current head instead
 * (the grace window of Auth0's "reuse interval" or Okta's "grace period"). Only SHA-256 hashes of refresh
 * tokens are stored.
 */
export const loginSessionEvents = {
  SessionStarted: z.object({
    sessionId: z.uuid(),
    userId: z.uuid(),
    companyId: z.uuid(),
    tokenHash: z.string().length(64),
    startedAt: z.iso.datetime(),
    expiresAt: z.iso.datetime(),
  }),
  RefreshTokenRotated: z.object({
    fromHash: z.string().length(64),
    toHash: z.string().length(64),
    at: z.iso.datetime(),
    expiresAt: z.iso.datetime(),
  }),
  // member_removed: the user was removed from their company's team; every login of theirs ends.
  SessionRevoked: z.object({ reason: z.enum(['logout', 'reuse_detected', 'member_removed']), at: z.iso.datetime() }),
};
type Events = typeof loginSessionEvents;
export type LoginSessionEvent = { [K in keyof Events]: { type: K; data: z.infer<Events[K]> } }[keyof Events];

