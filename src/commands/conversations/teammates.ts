import { userDecider, userStream } from '../../domain/accounts/user.js';
import type { Teammate } from '../../domain/conversations/commands.js';
import { loadState } from '../handleCommand.js';
import type { CommandDeps } from '../ports.js';

/**
 * THE membership query for conversation ownership: the user `userId` as a teammate of `companyId`, or null when
 * no such user belongs to that company (unknown, or another company's user: indistinguishable to the caller).
 * Read from the user's own stream, so a user registered a moment ago can be assigned at once. Teammates with
 * roles (and removal) are being built separately: when they land, this is the one place that learns them.
 */
export async function findTeammate(deps: Pick<CommandDeps, 'eventStore'>, companyId: string, userId: string): Promise<Teammate | null> {
  const { state } = await loadState(deps.eventStore, userStream(userId), userDecider);
  if (!state.exists || state.companyId !== companyId) return null;
  return { userId: state.userId, companyId: state.companyId };
}
