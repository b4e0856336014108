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

/** Records handled at once, and read from the read models per page. */
export const REMOVAL_PAGE = 100;
/** A removal stops after this many pages of one kind (REMOVAL_PAGE × this records), logging what is left. */
const MAX_PAGES = 1000;

/**
 * What a removal reads of the read models: the removed teammate's records, a page at a time. Read models are
 * eventually consistent, so each page is read once they have applied the writes before it (`caughtUp`).
 */
export interface RemovalReads {
  /** The user's login sessions not yet revoked (one started in the last instant is still refused by the team check). */
  activeLoginSessions(userId: string): Promise<string[]>;
  /** Ids of API tokens the user created that are not revoked. */
  liveApiTokens(companyId: string, userId: string, limit: number): Promise<string[]>;
  /** Ids of the user's pending invitations. */
  pendingInvitations(companyId: string, userId: string, limit: number): Promise<string[]>;
  /** Ids of the conversations (open or closed) assigned to the user. */
  assignedConversations(companyId: string, userId: string, limit: number): Promise<string[]>;
  /** Resolves once the read models have applied the event at `position` (best effort: a bounded wait). */
  caughtUp(position: bigint | null): Promise<void>;
}

type Input = { actor: Actor; companyId: string; userId: string };
const later = (a: bigint | null, b: bigint | null) => (a === null ? b : b === null || a > b ? a : b);

/**
 * Removes a teammate, and their power with them. The team's stream says so first: from then on every request
 * of theirs, every API token they created and every invitation they sent is refused (each is checked against
 * the team's stream). Then the removal records it where it shows: their login sessions, API tokens and pending
 * invitations are revoked, the conversations they own go back to Unassigned (events, so the audit names who
 * had them), and their email is released so they may be invited again. Returns the position of its last write.
 */
export async function removeTeammate(deps: CommandDeps, reads: RemovalReads, input: Input) {
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
async function endTheirPower(deps: CommandDeps, reads: RemovalReads, input: Input, removedAt: bigint | null): Promise<bigint | null> {
  const { companyId, userId, actor } = input;
  // Whatever they created or were given before the removal is in the read models once they pass it.
  await reads.caughtUp(removedAt);
  const metadata = { companyId, actor: `user:${actor.userId}` };
  const tokens = await drain(deps, reads, 'API tokens', (limit) => reads.liveApiTokens(companyId, userId, limit), (tokenId) =>
    revokeApiToken(deps, { companyId, userId: actor.userId, tokenId }),
  );
  const invitations = await drain(deps, reads, 'invitations', (limit) => reads.pendingInvitations(companyId, userId, limit), (invitationId) =>
    revokeInvitation(deps, { actor, companyId, invitationId }),
  );
  // Only while it is still theirs: an assignment made meanwhile (to someone else) stays.
  const unassign = (conversationId: string) =>
    handleCommand(deps.eventStore, conversationStream(conversationId), conversationDecider, { type: 'UnassignConversation', from: userId, by: `user:${actor.userId}`, now: deps.clock.now().toISOString() }, { metadata });
  const conversations = await drain(deps, reads, 'conversations', (limit) => reads.assignedConversations(companyId, userId, limit), unassign);
  return later(later(tokens, invitations), conversations);
}

/**
 * Acts on every id `page` yields, a page at a time, reading the next page once the read models have applied
 * the last one's writes. Stops when a page is empty, or changes nothing (the read models are behind: what is
 * left is still refused by the checks, and a page that changed nothing would only come back).
 */
async function drain(
  deps: CommandDeps,
  reads: RemovalReads,
  what: string,
  page: (limit: number) => Promise<string[]>,
  act: (id: string) => Promise<{ position: bigint | null }>,
): Promise<bigint | null> {
  let last: bigint | null = null;
  for (let n = 0; n < MAX_PAGES; n++) {
    const ids = await page(REMOVAL_PAGE);
    if (ids.length === 0) return last;
    const done = (await Promise.all(ids.map(act))).reduce<bigint | null>((p, r) => later(p, r.position), null);
    if (done === null) {
      deps.logger.warn({ what, left: ids.length }, 'removing a teammate: the read models are behind, some of their records were not updated');
      return last;
    }
    last = done;
    await reads.caughtUp(last);
  }
  deps.logger.warn({ what }, 'removing a teammate: stopped after the page limit, some of their records were not updated');
  return last;
}
