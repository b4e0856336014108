import { userDecider, userStream } from '../../domain/accounts/user/decider.js';
import { type UserState } from '../../domain/accounts/user/state.js';
import { companyDecider, companyStream } from '../../domain/company/decider.js';
import { type CompanyState } from '../../domain/company/state.js';
import type { EventStore } from '../../ports/eventStore.js';
import { loadState } from '../handleCommand.js';

/**
 * Queries on one account or company, read from its stream (strongly consistent: a grant, a revocation or a
 * registration applies to the very next request). Routes read users and companies through these only.
 */
export type RegisteredUser = Extract<UserState, { status: 'active' }>;
export type RegisteredCompany = Extract<CompanyState, { exists: true }>;

/** The registered user, or null when there is none under that id. */
export async function loadUser(eventStore: EventStore, userId: string): Promise<RegisteredUser | null> {
  const { state } = await loadState(eventStore, userStream(userId), userDecider);
  return state.status === 'active' ? state : null;
}

/** The registered company, or null when there is none under that id. */
export async function loadCompany(eventStore: EventStore, companyId: string): Promise<RegisteredCompany | null> {
  const { state } = await loadState(eventStore, companyStream(companyId), companyDecider);
  return state.exists ? state : null;
}
