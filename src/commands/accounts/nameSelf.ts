import { teamDecider, teamStream } from '../../domain/accounts/team/decider.js';
import { userDecider, userStream } from '../../domain/accounts/user/decider.js';
import { handleCommand, loadState } from '../handleCommand.js';
import type { CommandDeps } from '../deps.js';
import { legacyOwnerOf } from './membership.js';

/**
 * A teammate sets the name the team sees them by. The spec fixes the sign-up body (email, password, company
 * name), so an owner starts without one and the dashboard asks for it right after sign-up; invited teammates
 * give theirs when they accept and may change it here.
 */
export async function nameSelf(deps: CommandDeps, input: { companyId: string; userId: string; name: string }) {
  const now = deps.clock.now().toISOString();
  const legacyOwnerUserId = await legacyOwnerOf(deps, input.companyId);
  // Only a company from before teams (no team stream) needs its owner's email, for their first team event.
  const legacyOwner = legacyOwnerUserId === input.userId ? (await loadState(deps.eventStore, userStream(input.userId), userDecider)).state : null;
  const result = await handleCommand(
    deps.eventStore,
    teamStream(input.companyId),
    teamDecider,
    {
      type: 'RenameSelf',
      userId: input.userId,
      name: input.name,
      now,
      legacyOwner: legacyOwner?.status === 'active' ? { userId: legacyOwner.userId, email: legacyOwner.email } : undefined,
    },
    { metadata: { companyId: input.companyId, actor: `user:${input.userId}` }, maxRetries: 10 },
  );
  return { position: result.position };
}
