import { z } from 'zod';

/**
 * Status events name a platform request or dialog, not a customer. A lookup stream per (integration, kind,
 * id) records which conversation the id belongs to, written by the command that received the message, so a
 * status event finds its conversation with one bounded read: no waiting for a read model to catch up.
 */
export const platformRefEvents = {
  PlatformRefLinked: z.object({ conversationId: z.uuid(), at: z.iso.datetime() }),
};
type Events = typeof platformRefEvents;
export type PlatformRefEvent = { [K in keyof Events]: { type: K; data: z.infer<Events[K]>; id?: string } }[keyof Events];

