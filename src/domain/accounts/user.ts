import { z } from 'zod';
import type { Decider } from '../decider.js';
import { DomainError } from '../errors.js';

export const userEvents = {
  // passwordHash is an argon2id PHC string, never the password itself.
  UserRegistered: z.object({
    userId: z.uuid(),
    email: z.string(),
    passwordHash: z.string().startsWith('$argon2id$'),
    companyId: z.uuid(),
    companyKey: z.number().int().positive(),
    createdAt: z.iso.datetime(),
  }),
};
export type UserEvent = { type: 'UserRegistered'; data: z.infer<typeof userEvents.UserRegistered> };
export type UserState = { exists: false } | ({ exists: true } & z.infer<typeof userEvents.UserRegistered>);
export type UserCommand = { type: 'RegisterUser' } & z.infer<typeof userEvents.UserRegistered>;

export const userDecider: Decider<UserCommand, UserEvent, UserState> = {
  initialState: { exists: false },
  evolve: (_state, event) => ({ exists: true, ...event.data }),
  decide(command, state) {
    if (state.exists) throw new DomainError('CONFLICT', 'User already exists');
    const { type: _type, ...data } = command;
    return [{ type: 'UserRegistered', data }];
  },
};

export const userStream = (userId: string) => `user-${userId}`;
