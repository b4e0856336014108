import { conversationIdOfStream } from '../../domain/conversations/decider.js';
import { conversationEvents } from '../../domain/conversations/events.js';
import { DomainError } from '../../domain/errors.js';
import { routeHandoffToTeam } from '../../commands/conversations/manageConversation.js';
import { DESK_CONVERSATIONS, type DeskConversationDoc } from '../../projections/assignmentDesk/assignmentDeskProjection.js';
import { teamRoutes } from '../../projections/supportTeams/queries.js';
import type { RecordedEventOf } from '../../projections/projection.js';
import { defineReactor } from '../../processing/reactor.js';

type Trigger = RecordedEventOf<typeof conversationEvents, 'AgentReplied' | 'AiSessionPaused' | 'HumanRequested'>;

const isHandoff = (event: Trigger) =>
  event.type === 'HumanRequested' || (event.type === 'AgentReplied' ? event.data.handoff : event.data.reason === 'handoff');

/**
 * Team routing: a conversation handed off to people goes to the support team its integration's route names
 * (domain/supportTeams), unless it has a team already. Per event: one read of the company's routes (most
 * companies have none: nothing more), then the teams' stream for the decision. Idempotent: the decider records
 * nothing when the conversation has its team.
 */
export const teamRoutingReactor = defineReactor(conversationEvents, {
  name: 'team-routing',
  eventTypes: ['AgentReplied', 'AiSessionPaused', 'HumanRequested'],
  start: (ctx) => async (event) => {
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
