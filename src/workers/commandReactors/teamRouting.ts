import { conversationIdOfStream } from '../../domain/conversations/decider.js';
import { conversationEvents } from '../../domain/conversations/events.js';
import { DomainError } from '../../domain/errors.js';
import { routeHandoffToTeam, unrouteFromDeletedTeam } from '../../commands/conversations/manageConversation.js';
import { companyIdOfSupportTeamsStream } from '../../domain/supportTeams/decider.js';
import { supportTeamEvents } from '../../domain/supportTeams/events.js';
import { longestWaitingFor } from '../../projections/assignmentDesk/queries.js';
import { DESK_CONVERSATIONS, type DeskConversationDoc } from '../../projections/assignmentDesk/assignmentDeskProjection.js';
import { teamRoutes } from '../../projections/supportTeams/queries.js';
import type { RecordedEventOf } from '../../projections/projection.js';
import { defineReactor, type ReactorContext } from '../../processing/reactor.js';

const schemas = { ...conversationEvents, ...supportTeamEvents };
type Trigger = RecordedEventOf<typeof schemas, 'AgentReplied' | 'AiSessionPaused' | 'HumanRequested'>;
type Deleted = RecordedEventOf<typeof schemas, 'SupportTeamDeleted'>;

const PAGE = 100;

/**
 * A deleted team's waiting conversations go back to the whole company's queue, a page at a time (each page waits
 * for the read model, so the next read does not see them again). Bounded by the team's queue, not its history.
 */
async function releaseDeletedTeam(ctx: ReactorContext, event: Deleted): Promise<void> {
  const companyId = companyIdOfSupportTeamsStream(event.stream);
  for (;;) {
    const waiting = await longestWaitingFor(ctx.readStore, companyId, event.data.teamId, PAGE);
    let position: bigint | null = null;
    for (const conversation of waiting) {
      const result = await unrouteFromDeletedTeam(ctx.commands, companyId, conversation.id, event.data.teamId);
      position = result.position ?? position;
    }
    if (position === null || waiting.length < PAGE) return;
    await ctx.waitForProjections(position);
  }
}

const isHandoff = (event: Trigger | Deleted) =>
  event.type !== 'SupportTeamDeleted' &&
  (
  event.type === 'HumanRequested' || (event.type === 'AgentReplied' ? event.data.handoff : event.data.reason === 'handoff'));

/**
 * Team routing: a conversation handed off to people goes to the support team its integration's route names
 * (domain/supportTeams), unless it has a team already. Per event: one read of the company's routes (most
 * companies have none: nothing more), then the teams' stream for the decision. Idempotent: the decider records
 * nothing when the conversation has its team. A deleted team's waiting conversations go back to everyone.
 */
export const teamRoutingReactor = defineReactor(schemas, {
  name: 'team-routing',
  eventTypes: ['AgentReplied', 'AiSessionPaused', 'HumanRequested', 'SupportTeamDeleted'],
  start: (ctx) => async (event) => {
    if (event.type === 'SupportTeamDeleted') {
      await ctx.waitForProjections(event.position);
      await releaseDeletedTeam(ctx, event);
      return;
    }
    if (!isHandoff(event)) return;
    const conversationId = conversationIdOfStream(event.stream);
    const conversation = await ctx.readStore.get<DeskConversationDoc>(DESK_CONVERSATIONS, conversationId);
    const companyId = event.metadata.companyId ?? conversation?.companyId;
    if (!companyId || conversation?.integrationId === undefined) return;
    if (!(await teamRoutes(ctx.readStore, companyId))[String(conversation.integrationId)]) return;
    try {
      await routeHandoffToTeam(ctx.commands, companyId, conversationId, conversation.integrationId);
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      ctx.commands.logger.warn({ err, companyId, conversationId }, 'team routing skipped');
    }
  },
});
