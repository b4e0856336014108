import { z } from 'zod';

/**
 * Whether the company's AI agents read its teammates' internal notes (NoteAdded) as context. Off until a
 * manager turns it on: a note is written for colleagues, and may say what the customer must not be told.
 * Its own stream per company, changed rarely.
 */
export const noteSharingEvents = {
  NoteSharingConfigured: z.object({ shareWithAi: z.boolean(), by: z.string().max(100), at: z.iso.datetime() }),
};
type Events = typeof noteSharingEvents;
export type NoteSharingEvent = { [K in keyof Events]: { type: K; data: z.infer<Events[K]> } }[keyof Events];
