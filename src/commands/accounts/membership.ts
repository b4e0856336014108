import { companyDecider, companyStream } from '../../domain/company/decider.js';
import { roleOf } from '../../domain/accounts/team/state.js';
import { teamDecider, teamStream } from '../../domain/accounts/team/decider.js';
import { type Role } from '../../domain/accounts/team/events.js';
import type { EventStore } from '../../ports/eventStore.js';
import { loadState } from '../handleCommand.js';

/**
 * The user's current role in the company, read from the team's stream (strongly consistent: a role change
 * or a removal applies to the very next request), or null when they are not, or no longer, a member.
 * Only a company from before teams (no team stream) needs its registration, for the owner's id.
 */
export async function memberRole(deps: { eventStore: EventStore }, companyId: string, userId: string): Promise<Role | null> {
  const { state: team } = await loadState(deps.eventStore, teamStream(companyId), teamDecider);
  if (team.status === 'active') return roleOf(team, userId, null);
  return roleOf(team, userId, await legacyOwnerOf(deps, companyId));
}

export async function legacyOwnerOf(deps: { eventStore: EventStore }, companyId: string): Promise<string | null> {
  const { state: company } = await loadState(deps.eventStore, companyStream(companyId), companyDecider);
  return company.exists ? company.ownerUserId : null;
}
