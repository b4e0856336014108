import { emailReservationDecider } from '../../domain/accounts/emailReservation/decider.js';
import { teamDecider, teamStream, type Actor } from '../../domain/accounts/team/decider.js';
import { userDecider, userStream } from '../../domain/accounts/user/decider.js';
import { conversationDecider, conversationStream } from '../../domain/conversations/decider.js';
import { revokeApiToken } from '../apiTokens/apiTokens.js';
import { handleCommand, loadState } from '../handleCommand.js';
import type { CommandDeps } from '../deps.js';
import { legacyOwnerOf } from './membership.js';
import { emailStream } from './registerCompany.js';
import { logout } from './logins.js';
import { revokeInvitation } from './teammates.js';
import { drain, later, type TeammateRecords } from './teammateRecords.js';

type Input = { actor: Actor; companyId: string; userId: string };

/**
 * Removes a teammate, and their power with them. The team's stream says so first: from then on every request
 * of theirs, every API token they created and every invitation they sent is refused (each is checked against
 * the team's stream). Then the removal records it where it shows: their login sessions, API tokens and pending
 * invitations are revoked, the conversations they own go back to Unassigned (events, so the audit names who
 * had them), and their email is released so they may be invited again. Returns the position of its last write.
 */
export async function removeTeammate(deps: CommandDeps, reads: TeammateRecords, input: Input) {
  const now = deps.clock.now().toISOString();
  const metadata = { companyId: input.companyId, actor: `user:${input.actor.userId}` };
  const result = await handleCommand(
    deps.eventStore,
    teamStream(input.companyId),
    teamDecider,
    { type: 'RemoveMember', actor: input.actor, userId: input.userId, now, legacyOwnerUserId: (await legacyOwnerOf(deps, input.companyId)) ?? '' },
    { metadata, maxRetries: 10 },
  );
  if (result.events.length === 0) return { position: result.position };
  for (const sessionId of await reads.activeLoginSessions(input.userId)) await logout(deps, sessionId, 'member_removed');
  const position = later(result.position, await endTheirPower(deps, reads, input, result.position));
  const { state: user } = await loadState(deps.eventStore, userStream(input.userId), userDecider);
  if (user.status === 'active') {
    await handleCommand(deps.eventStore, emailStream(user.email), emailReservationDecider, { type: 'ReleaseRegisteredEmail', userId: input.userId, now }, { metadata });
  }
  return { position };
}

/** Revokes their tokens and invitations and gives back their conversations, each a page at a time. */
async function endTheirPower(deps: CommandDeps, reads: TeammateRecords, input: Input, removedAt: bigint | null): Promise<bigint | null> {
  const { companyId, userId, actor } = input;
  // Whatever they created or were given before the removal is in the read models once they pass it.
  await reads.caughtUp(removedAt);
  const metadata = { companyId, actor: `user:${actor.userId}` };
  const tokens = await drain(deps, reads.caughtUp, 'API tokens', (limit) => reads.liveApiTokens(companyId, userId, limit), (tokenId) =>
    revokeApiToken(deps, { companyId, userId: actor.userId, tokenId }),
  );
  const invitations = await drain(deps, reads.caughtUp, 'invitations', (limit) => reads.pendingInvitations(companyId, userId, limit), (invitationId) =>
    revokeInvitation(deps, { actor, companyId, invitationId }),
  );
  // Only while it is still theirs: an assignment made meanwhile (to someone else) stays.
  const unassign = (conversationId: string) =>
    handleCommand(deps.eventStore, conversationStream(conversationId), conversationDecider, { type: 'UnassignConversation', from: userId, by: `user:${actor.userId}`, now: deps.clock.now().toISOString() }, { metadata });
  const conversations = await drain(deps, reads.caughtUp, 'conversations', (limit) => reads.assignedConversations(companyId, userId, limit), unassign);
  return later(later(tokens, invitations), conversations);
}
