import { z } from 'zod';

/** The kinds of in-app notification a teammate gets (the notifications read model). */
export const inAppNotificationKind = z.enum([
  /** Someone else assigned them a conversation (or automatic assignment did). */
  'assigned',
  /** A teammate's internal note named them (@name). */
  'mentioned',
  /** A conversation was handed to people: to its assignee, or, while nobody has it, to the owners and admins. */
  'handoff_waiting',
  // Extension point: 'sla_near_breach' (a conversation close to its SLA) joins here, with its case in
  // src/projections/notifications/notificationsProjection.ts.
]);
export type InAppNotificationKind = z.infer<typeof inAppNotificationKind>;

/** At most this many notifications are marked read by one request (the dashboard's list is shorter). */
export const MAX_MARKED_READ = 100;

/**
 * A teammate read some of their in-app notifications (ids of the notifications read model). Appended without
 * a decision on the teammate's own stream (`notification-reads-<userId>`): reading twice changes nothing, and
 * nothing decides on it but the read model. The ids were checked to be the caller's own when it was written.
 */
export const inAppNotificationEvents = {
  NotificationsRead: z.object({
    userId: z.uuid(),
    companyId: z.uuid(),
    notificationIds: z.array(z.string().max(200)).min(1).max(MAX_MARKED_READ),
    at: z.iso.datetime(),
  }),
};
type Events = typeof inAppNotificationEvents;
export type InAppNotificationEvent = { [K in keyof Events]: { type: K; data: z.infer<Events[K]> } }[keyof Events];

export const notificationReadsStream = (userId: string) => `notification-reads-${userId}`;
