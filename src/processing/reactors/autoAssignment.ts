import { availabilityEvents } from '../../domain/accounts/availability/events.js';
import { teamEvents } from '../../domain/accounts/team/events.js';
import { companyIdOfAutoAssignmentStream } from '../../domain/company/autoAssignment/decider.js';
import { autoAssignmentEvents } from '../../domain/company/autoAssignment/events.js';
import { conversationIdOfStream } from '../../domain/conversations/decider.js';
import { conversationEvents } from '../../domain/conversations/events.js';
import { DomainError } from '../../domain/errors.js';
import { autoAssignConversation } from '../../commands/conversations/manageConversation.js';
import { DESK_CONVERSATIONS, type DeskConversationDoc } from '../../projections/assignmentDesk/assignmentDeskProjection.js';
import { deskSettings, longestWaiting, nextAssignee } from '../../projections/assignmentDesk/queries.js';
import type { RecordedEventOf } from '../../projections/projection.js';
import { defineReactor, type ReactorContext } from '../reactor.js';

const schemas = { ...conversationEvents, ...availabilityEvents, ...autoAssignmentEvents, ...teamEvents };
type Trigger = RecordedEventOf<typeof schemas, 'AgentReplied' | 'AiSessionPaused' | 'HumanRequested' | 'DialogTransferred' | 'ConversationUnassigned' | 'AiSessionClosed' | 'AvailabilitySet' | 'AutoAssignmentConfigured' | 'TeamMemberJoined'>;

// However many wait, one event assigns at most the team's free places; this only guards against a read model
// that would never move.
const MAX_PER_EVENT = 1000;

/** Whether the event can start a wait (a handoff) or free a place (unassign, close, online, capacity, a new teammate). */
function mayMoveTheQueue(event: Trigger): boolean {
  if (event.type === 'AgentReplied') return event.data.handoff;
  if (event.type === 'AiSessionPaused') return event.data.reason === 'handoff';
  return true;
}

async function companyOf(event: Trigger, ctx: ReactorContext): Promise<string | null> {
  switch (event.type) {
    case 'AvailabilitySet':
      return event.data.companyId;
    case 'AutoAssignmentConfigured':
      return companyIdOfAutoAssignmentStream(event.stream);
    case 'TeamMemberJoined':
      return event.stream.slice('team-'.length);
    default: {
      const conversation = await ctx.readStore.get<DeskConversationDoc>(DESK_CONVERSATIONS, conversationIdOfStream(event.stream));
      return conversation?.companyId ?? null;
    }
  }
}

/**
 * Serves the company's queue while someone has room: the longest-waiting conversation goes to the online
 * teammate given one longest ago among those under the capacity. Each assignment is waited for in the read
 * model before the next decision, so counts are never stale.
 */
async function balance(ctx: ReactorContext, companyId: string): Promise<void> {
  const { readStore, commands, waitForProjections } = ctx;
  const settings = await deskSettings(readStore, companyId);
  if (!settings.enabled) return;
  for (let i = 0; i < MAX_PER_EVENT; i++) {
    const waiting = await longestWaiting(readStore, companyId);
    if (!waiting) return;
    const assignee = await nextAssignee(readStore, companyId, settings.capacity);
    if (!assignee) return;
    let position: bigint | null;
    try {
      position = (await autoAssignConversation(commands, companyId, waiting.id, assignee.id)).position;
    } catch (err) {
      // A teammate removed a moment ago, a conversation gone: the read model is catching up; its next event rebalances.
      if (err instanceof DomainError) return commands.logger.warn({ err, companyId, conversationId: waiting.id }, 'automatic assignment skipped');
      throw err;
    }
    // Nothing recorded: a person took it or it was resolved meanwhile; the events saying so rebalance.
    if (position === null) return;
    await waitForProjections(position);
  }
}

/**
 * Automatic assignment of handed-off conversations (off unless the company turns it on): round-robin among
 * online teammates, each up to the company's capacity of open conversations; a conversation nobody has room
 * for waits in "Needs human" and is assigned as soon as a place frees up. Per event it reads the company's
 * settings, the head of its queue and its online teammates: never a conversation's or the store's history.
 */
export const autoAssignmentReactor = defineReactor(schemas, {
  name: 'auto-assignment',
  eventTypes: ['AgentReplied', 'AiSessionPaused', 'HumanRequested', 'DialogTransferred', 'ConversationUnassigned', 'AiSessionClosed', 'AvailabilitySet', 'AutoAssignmentConfigured', 'TeamMemberJoined'],
  start: (ctx) => async (event) => {
    if (!mayMoveTheQueue(event)) return;
    // The decision reads the read models: they must include this event first.
    await ctx.waitForProjections(event.position);
    const companyId = await companyOf(event, ctx);
    if (companyId) await balance(ctx, companyId);
  },
});
