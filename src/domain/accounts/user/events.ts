import { z } from 'zod';

const registered = z.object({
  userId: z.uuid(),
  email: z.string(),
  // passwordHash is an argon2id PHC string, never the password itself.
  passwordHash: z.string().startsWith('$argon2id$'),
  companyId: z.uuid(),
  companyKey: z.number().int().positive(),
  createdAt: z.iso.datetime(),
});

/**
 * Superadmin is a fact on the user's own stream, recorded only by an operator on the server
 * (`npm run superadmin -- grant <email>`): nothing a caller sends over HTTP, and no email list, makes one.
 * `by` says who ran the command (for the audit trail).
 */
const superadminChange = z.object({ by: z.string().min(1).max(200), at: z.iso.datetime() });

export const userEvents = {
  UserRegistered: registered,
  SuperadminGranted: superadminChange,
  SuperadminRevoked: superadminChange,
};
type Events = typeof userEvents;
export type UserEvent = { [K in keyof Events]: { type: K; data: z.infer<Events[K]> } }[keyof Events];
