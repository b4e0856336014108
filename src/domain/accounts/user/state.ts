import type { z } from 'zod';
import type { UserEvent, userEvents } from './events.js';

/**
 * The accounts domain's one existence shape (`status`, as agents, integrations and API tokens have it). A user
 * account is never deleted: leaving a company is a team fact (`team-<companyId>`, see accounts/team/), so the account's
 * credentials stay in the event log for the audit trail while its email is released.
 */
export type UserState = { status: 'none' } | ({ status: 'active'; isSuperadmin: boolean } & z.infer<typeof userEvents.UserRegistered>);

export const initialUserState: UserState = { status: 'none' };

export function evolveUser(state: UserState, event: UserEvent): UserState {
  switch (event.type) {
    case 'UserRegistered':
      return { status: 'active', isSuperadmin: false, ...event.data };
    case 'SuperadminGranted':
      return state.status === 'active' ? { ...state, isSuperadmin: true } : state;
    case 'SuperadminRevoked':
      return state.status === 'active' ? { ...state, isSuperadmin: false } : state;
  }
}
