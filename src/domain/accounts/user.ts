import { z } from 'zod';
import type { Decider } from '../decider.js';
import { DomainError } from '../errors.js';

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
/**
 * The accounts domain's one existence shape (`status`, as agents, integrations and API tokens have it). A user
 * account is never deleted: leaving a company is a team fact (`team-<companyId>`, see team.ts), so the account's
 * credentials stay in the event log for the audit trail while its email is released.
 */
export type UserState = { status: 'none' } | ({ status: 'active'; isSuperadmin: boolean } & z.infer<typeof registered>);
export type UserCommand =
  | ({ type: 'RegisterUser' } & z.infer<typeof registered>)
  | { type: 'GrantSuperadmin'; by: string; now: string }
  | { type: 'RevokeSuperadmin'; by: string; now: string };

const noAccount = () => new DomainError('NOT_FOUND', 'User not found');

export const userDecider: Decider<UserCommand, UserEvent, UserState> = {
  initialState: { status: 'none' },
  evolve(state, event) {
    switch (event.type) {
      case 'UserRegistered':
        return { status: 'active', isSuperadmin: false, ...event.data };
      case 'SuperadminGranted':
        return state.status === 'active' ? { ...state, isSuperadmin: true } : state;
      case 'SuperadminRevoked':
        return state.status === 'active' ? { ...state, isSuperadmin: false } : state;
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'RegisterUser': {
        if (state.status !== 'none') throw new DomainError('CONFLICT', 'User already exists');
        const { type: _type, ...data } = command;
        return [{ type: 'UserRegistered', data }];
      }
      case 'GrantSuperadmin':
        if (state.status !== 'active') throw noAccount();
        return state.isSuperadmin ? [] : [{ type: 'SuperadminGranted', data: { by: command.by, at: command.now } }];
      case 'RevokeSuperadmin':
        if (state.status !== 'active') throw noAccount();
        return state.isSuperadmin ? [{ type: 'SuperadminRevoked', data: { by: command.by, at: command.now } }] : [];
    }
  },
};

export const userStream = (userId: string) => `user-${userId}`;
