import { z } from 'zod';

/**
 * Case-insensitive email uniqueness, enforced by the event store: one stream per normalised email,
 * created with expected revision "no stream". A reservation whose registration never completed
 * (a crash between streams) can be taken over once it is stale, so an email is never locked forever.
 */
export const emailReservationEvents = {
  EmailReserved: z.object({ userId: z.uuid(), at: z.iso.datetime() }),
  RegistrationCompleted: z.object({ userId: z.uuid(), companyId: z.uuid() }),
  EmailReservationReleased: z.object({ userId: z.uuid() }),
  /** The account was removed from its team: the email may register again or be invited anew. */
  RegisteredEmailReleased: z.object({ userId: z.uuid(), at: z.iso.datetime() }),
};
type Events = typeof emailReservationEvents;
export type EmailReservationEvent = { [K in keyof Events]: { type: K; data: z.infer<Events[K]> } }[keyof Events];

