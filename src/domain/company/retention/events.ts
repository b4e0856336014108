import { z } from 'zod';

/**
 * How long the company keeps its customers' conversations (docs/erasure.md, retention): a conversation closed
 * more than `conversationDays` days ago is erased, with its customer, by the same path as an erasure by hand.
 * Null keeps them forever (the default). Its own stream per company, changed rarely.
 */
export const RETENTION_LIMITS = { minDays: 1, maxDays: 3650 } as const;

export const retentionDays = z.number().int().min(RETENTION_LIMITS.minDays).max(RETENTION_LIMITS.maxDays).nullable();

export const retentionEvents = {
  RetentionPolicySet: z.object({ conversationDays: retentionDays, by: z.string().max(100), at: z.iso.datetime() }),
};
type Events = typeof retentionEvents;
export type RetentionEvent = { [K in keyof Events]: { type: K; data: z.infer<Events[K]> } }[keyof Events];
