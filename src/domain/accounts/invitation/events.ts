import { z } from 'zod';
import { roleSchema } from '../team/events.js';

/**
 * An invitation to join a company's team. Its link carries a single-use token `<invitationId>.<secret>`:
 * the id finds this stream, only the secret's SHA-256 is stored. Accepting appends `InvitationAccepted`
 * with the revision the decision was made on, so of two concurrent accepts exactly one wins.
 *
 * pending → accepted | revoked is a real lifecycle (not an existence flag); "expired" is not stored, it is
 * a pending invitation read after `expiresAt`.
 */
export const invitationEvents = {
  InvitationCreated: z.object({
    invitationId: z.uuid(),
    companyId: z.uuid(),
    email: z.string().max(254),
    role: roleSchema,
    tokenHash: z.string().length(64),
    invitedBy: z.uuid(),
    createdAt: z.iso.datetime(),
    expiresAt: z.iso.datetime(),
  }),
  InvitationAccepted: z.object({ userId: z.uuid(), at: z.iso.datetime() }),
  InvitationRevoked: z.object({ by: z.uuid(), at: z.iso.datetime() }),
};
type Events = typeof invitationEvents;
export type InvitationEvent = { [K in keyof Events]: { type: K; data: z.infer<Events[K]> } }[keyof Events];

