import { z } from 'zod';

/**
 * Whether a teammate takes conversations now. Set by the teammate; automatic assignment gives handed-off
 * conversations only to teammates who are online. One small stream per user: it grows with their own changes.
 */
export const availability = z.enum(['online', 'away']);
export type Availability = z.infer<typeof availability>;

export const availabilityEvents = {
  AvailabilitySet: z.object({ userId: z.uuid(), companyId: z.uuid(), availability, previous: availability, at: z.iso.datetime() }),
};
type Events = typeof availabilityEvents;
export type AvailabilityEvent = { [K in keyof Events]: { type: K; data: z.infer<Events[K]> } }[keyof Events];
