import type { z } from 'zod';
import type { Decider } from '../../decider.js';
import { DomainError } from '../../errors.js';
import type { UserEvent, userEvents } from './events.js';
import { evolveUser, initialUserState, type UserState } from './state.js';

export type UserCommand =
  | ({ type: 'RegisterUser' } & z.infer<typeof userEvents.UserRegistered>)
  | { type: 'GrantSuperadmin'; by: string; now: string }
  | { type: 'RevokeSuperadmin'; by: string; now: string };

const noAccount = () => new DomainError('NOT_FOUND', 'User not found');

export const userDecider: Decider<UserCommand, UserEvent, UserState> = {
  initialState: initialUserState,
  evolve: evolveUser,
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
