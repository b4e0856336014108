import type { Teammate } from '../../domain/conversations/decider.js';
import { memberRole } from '../accounts/membership.js';
import type { CommandDeps } from '../deps.js';

/**
 * THE membership query for conversation ownership: the user `userId` as a teammate of `companyId`, or null when
 * they are not (or no longer) a member: unknown, removed, or another company's user, indistinguishable to the
 * caller. Read from the team's stream (memberRole), so a teammate who just joined can be assigned at once and a
 * removed one cannot.
 */
export async function findTeammate(deps: Pick<CommandDeps, 'eventStore'>, companyId: string, userId: string): Promise<Teammate | null> {
  const role = await memberRole(deps, companyId, userId);
  return role === null ? null : { userId, companyId };
}
