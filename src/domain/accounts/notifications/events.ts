import { z } from 'zod';

/** A handoff may wait at most this long (a day) before its email, at least a minute. */
export const HANDOFF_WAITING_MINUTES = { min: 1, max: 1440 } as const;

/** What a teammate is emailed about: each one their own choice. */
export const notificationPreferences = z.object({
  /** A conversation was assigned to them by someone else. */
  assigned: z.boolean(),
  /** A handed-off conversation they have (or, for owners and admins, that nobody has) waits longer than `handoffWaitingMinutes`. */
  handoffWaiting: z.boolean(),
  handoffWaitingMinutes: z.number().int().min(HANDOFF_WAITING_MINUTES.min).max(HANDOFF_WAITING_MINUTES.max),
});
export type NotificationPreferences = z.infer<typeof notificationPreferences>;

/** What a teammate who never chose gets: both emails, after 15 minutes of waiting. */
export const DEFAULT_NOTIFICATION_PREFERENCES: NotificationPreferences = { assigned: true, handoffWaiting: true, handoffWaitingMinutes: 15 };

export const notificationPreferenceEvents = {
  NotificationPreferencesSet: notificationPreferences.extend({ userId: z.uuid(), at: z.iso.datetime() }),
};
type Events = typeof notificationPreferenceEvents;
export type NotificationPreferenceEvent = { [K in keyof Events]: { type: K; data: z.infer<Events[K]> } }[keyof Events];
