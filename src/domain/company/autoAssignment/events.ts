import { z } from 'zod';

/**
 * The company's automatic assignment: when on, a handed-off conversation goes to the online teammate who was
 * given one longest ago among those with fewer than `capacity` open conversations; when all are full it waits
 * in "Needs human" until someone frees up. Its own stream per company, changed rarely.
 */
export const MAX_CAPACITY = 100;

export const autoAssignmentEvents = {
  AutoAssignmentConfigured: z.object({ enabled: z.boolean(), capacity: z.number().int().min(1).max(MAX_CAPACITY), by: z.string().max(100), at: z.iso.datetime() }),
};
type Events = typeof autoAssignmentEvents;
export type AutoAssignmentEvent = { [K in keyof Events]: { type: K; data: z.infer<Events[K]> } }[keyof Events];
