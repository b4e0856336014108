import { z } from 'zod';

/**
 * An email notification, recorded before it is sent, on a stream of its own named for what it is about
 * (`notified-<id>`, id derived from the kind, the conversation, the occasion and the teammate), appended only
 * where no stream exists yet: so each teammate is emailed at most once per assignment or waiting handoff, by one
 * instance, whatever the event store. A failed send is logged, not retried (an email is not worth a second copy).
 */
export const notificationSentEvents = {
  NotificationEmailed: z.object({
    kind: z.enum(['assigned', 'handoff_waiting']),
    userId: z.uuid(),
    companyId: z.uuid(),
    conversationId: z.uuid(),
    at: z.iso.datetime(),
  }),
};
type Events = typeof notificationSentEvents;
export type NotificationSentEvent = { [K in keyof Events]: { type: K; data: z.infer<Events[K]> } }[keyof Events];

export const notificationSentStream = (id: string) => `notified-${id}`;
