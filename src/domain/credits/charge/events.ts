import { z } from 'zod';

/**
 * The exactly-once guard of one reply's charge, in a stream of its own (`charge-<replyId>`), kept by every
 * event store: EventStoreDB recognises a repeated event id only when it is retried at the same expected
 * revision, so the charge's deterministic id alone cannot stop a late second charge there.
 *
 * Before each attempt to append the charge to the company's credits stream, the revision the charge will take
 * there is recorded here (appended with the expected revision of this stream, so attempts are serialised).
 * A charge appended with an expected revision can land at that one revision or nowhere: whether the reply was
 * charged is then one read of the credits stream at the last recorded revision, however old the charge.
 */
export const chargeEvents = {
  ChargeAttempted: z.object({
    replyId: z.string().min(1).max(200),
    companyId: z.string().min(1).max(100),
    /** The credits stream revision the charge is appended at (a bigint, as a decimal string). */
    debitRevision: z.string().regex(/^\d{1,20}$/),
    at: z.iso.datetime(),
  }),
};
type Events = typeof chargeEvents;
export type ChargeEvent = { [K in keyof Events]: { type: K; data: z.infer<Events[K]>; id?: string } }[keyof Events];
