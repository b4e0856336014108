import { z } from 'zod';

/**
 * A company API token lives in its own stream so that authenticating it reads a short, strongly
 * consistent history: a revocation is effective on the very next request. Only a hash is stored.
 */
export const apiTokenEvents = {
  ApiTokenIssued: z.object({
    tokenId: z.uuid(),
    companyId: z.uuid(),
    name: z.string().min(1).max(100),
    prefix: z.string().max(16),
    secretHash: z.string().length(64),
    createdAt: z.iso.datetime(),
    createdBy: z.uuid(),
  }),
  ApiTokenUsed: z.object({ at: z.iso.datetime() }),
  ApiTokenRevoked: z.object({ at: z.iso.datetime(), revokedBy: z.uuid() }),
};
type Events = typeof apiTokenEvents;
export type ApiTokenEvent = { [K in keyof Events]: { type: K; data: z.infer<Events[K]> } }[keyof Events];
