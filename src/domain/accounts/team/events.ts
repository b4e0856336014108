import { z } from 'zod';

export const roles = ['owner', 'admin', 'agent'] as const;
export const roleSchema = z.enum(roles);
export type Role = z.infer<typeof roleSchema>;

/**
 * A company's team: who belongs to it and with which role. One stream per company (`team-<companyId>`), so
 * the rules that span members ("the last owner cannot leave", "an admin cannot demote an owner") are decided
 * on one consistent state, and a role change or removal applies to the member's very next request (the
 * authenticator reads this stream).
 *
 * Companies registered before teams existed have no team stream: their one user, the company's
 * `ownerUserId`, is the owner (`roleOf`). The first join into such a team records that owner first.
 */
export const teamEvents = {
  TeamMemberJoined: z.object({
    userId: z.uuid(),
    email: z.string().max(254),
    name: z.string().max(200).nullable(),
    role: roleSchema,
    at: z.iso.datetime(),
    /** null for the company's registering owner (and the legacy owner recorded on a first join). */
    invitationId: z.uuid().nullable(),
  }),
  TeamMemberRoleChanged: z.object({ userId: z.uuid(), role: roleSchema, by: z.uuid(), at: z.iso.datetime() }),
  TeamMemberRemoved: z.object({ userId: z.uuid(), by: z.uuid(), at: z.iso.datetime() }),
  /** The member named themself (sign-up asks for no name: the spec fixes its body; the dashboard asks next). */
  TeamMemberRenamed: z.object({ userId: z.uuid(), name: z.string().min(1).max(200), at: z.iso.datetime() }),
};
type Events = typeof teamEvents;
export type TeamEvent = { [K in keyof Events]: { type: K; data: z.infer<Events[K]> } }[keyof Events];

