import { availabilityEvents } from '../../domain/accounts/availability/events.js';
import { teamEvents } from '../../domain/accounts/team/events.js';
import { companyIdOfAutoAssignmentStream } from '../../domain/company/autoAssignment/decider.js';
import { autoAssignmentEvents, MAX_CAPACITY } from '../../domain/company/autoAssignment/events.js';
import { companyIdOfSupportTeamsStream } from '../../domain/supportTeams/decider.js';
import { supportTeamEvents } from '../../domain/supportTeams/events.js';
import { conversationIdOfStream } from '../../domain/conversations/decider.js';
import { conversationEvents } from '../../domain/conversations/events.js';
import { DomainError } from '../../domain/errors.js';
import { autoAssignConversation } from '../../commands/conversations/manageConversation.js';
import { DESK_CONVERSATIONS, type DeskConversationDoc } from '../../projections/assignmentDesk/assignmentDeskProjection.js';
import { deskSettings, longestWaiting, longestWaitingFor, onlineTeammates } from '../../projections/assignmentDesk/queries.js';
import { listSupportTeams, teamRoutes } from '../../projections/supportTeams/queries.js';
import type { RecordedEventOf } from '../../projections/projection.js';
import { defineReactor, type ReactorContext } from '../../processing/reactor.js';

const schemas = { ...conversationEvents, ...availabilityEvents, ...autoAssignmentEvents, ...teamEvents, ...supportTeamEvents };
type Trigger = RecordedEventOf<typeof schemas, 'AgentReplied' | 'AiSessionPaused' | 'HumanRequested' | 'DialogTransferred' | 'ConversationUnassigned' | 'AiSessionClosed' | 'AvailabilitySet' | 'AutoAssignmentConfigured' | 'TeamMemberJoined' | 'ConversationRoutedToTeam' | 'SupportTeamCreated' | 'SupportTeamUpdated'>;

// Conversations read from the head of the queue per round; a longer queue takes more rounds, each bounded.
const ROUND = 100;

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
    case 'SupportTeamCreated':
    case 'SupportTeamUpdated':
      return companyIdOfSupportTeamsStream(event.stream);
    default: {
      if (event.metadata.companyId) return event.metadata.companyId;
      const conversation = await ctx.readStore.get<DeskConversationDoc>(DESK_CONVERSATIONS, conversationIdOfStream(event.stream));
      return conversation?.companyId ?? null;
    }
  }
}

interface Candidate {
  id: string;
  open: number;
}
interface Round {
  position: bigint | null;
  more: boolean;
}

/**
 * Round-robin with a capacity over one queue's head: each waiting conversation, oldest first, goes to the first
 * eligible teammate in `order` with room, who then moves to the end (the order is shared by every queue of the
 * round, so a teammate in two teams is counted once). Returns the position of the last assignment recorded.
 */
async function serveQueue(ctx: ReactorContext, companyId: string, waiting: DeskConversationDoc[], order: Candidate[], capacity: number, eligible: (id: string) => boolean): Promise<Round> {
  let position: bigint | null = null;
  for (const conversation of waiting) {
    const at = order.findIndex((t) => t.open < capacity && eligible(t.id));
    if (at === -1) return { position, more: false };
    const teammate = order[at]!;
    try {
      const result = await autoAssignConversation(ctx.commands, companyId, conversation.id, teammate.id);
      // Nothing recorded: a person took it or it was resolved meanwhile; the place stays free.
      if (result.position === null) continue;
      position = result.position;
    } catch (err) {
      // A teammate removed a moment ago: the read model is catching up; the removal's own events rebalance.
      if (!(err instanceof DomainError)) throw err;
      ctx.commands.logger.warn({ err, companyId, conversationId: conversation.id }, 'automatic assignment skipped');
      order.splice(at, 1);
      continue;
    }
    teammate.open += 1;
    order.push(...order.splice(at, 1));
  }
  return { position, more: waiting.length === ROUND };
}

/**
 * One round over the company's queues, in memory over one read of each queue's head and the online teammates.
 * Without support teams: one queue, every online teammate. With them: each team's queue among its members (at
 * the team's capacity, else the company's), then the conversations for no team among everyone, except those
 * whose integration routes to a team (routing records their team first; that event serves them).
 */
async function assignRound(ctx: ReactorContext, companyId: string, capacity: number): Promise<Round> {
  const teams = await listSupportTeams(ctx.readStore, companyId);
  const loadOrder = async () => (await onlineTeammates(ctx.readStore, companyId)).filter((t) => t.open < MAX_CAPACITY).map((t) => ({ id: t.id, open: t.open }));
  if (teams.length === 0) {
    const waiting = await longestWaiting(ctx.readStore, companyId, ROUND);
    if (waiting.length === 0) return { position: null, more: false };
    return serveQueue(ctx, companyId, waiting, await loadOrder(), capacity, () => true);
  }
  const order = await loadOrder();
  let position: bigint | null = null;
  let more = false;
  for (const team of teams) {
    const members = new Set(team.memberIds);
    const waiting = await longestWaitingFor(ctx.readStore, companyId, team.id, ROUND);
    const round = await serveQueue(ctx, companyId, waiting, order, team.capacity ?? capacity, (id) => members.has(id));
    position = round.position ?? position;
    more ||= round.more;
  }
  const routes = await teamRoutes(ctx.readStore, companyId);
  const known = new Set(teams.map((t) => t.id));
  const head = await longestWaitingFor(ctx.readStore, companyId, '', ROUND);
  const unrouted = head.filter((c) => c.integrationId === undefined || !known.has(routes[String(c.integrationId)] ?? ''));
  const round = await serveQueue(ctx, companyId, unrouted, order, capacity, () => true);
  return { position: round.position ?? position, more: more || head.length === ROUND };
}

/**
 * Serves the company's queue while someone has room. The read models are waited for after a round (its own
 * assignments included) before the next one and before the next event's decision, so counts are never stale.
 */
async function balance(ctx: ReactorContext, companyId: string): Promise<void> {
  const settings = await deskSettings(ctx.readStore, companyId);
  if (!settings.enabled) return;
  for (;;) {
    const { position, more } = await assignRound(ctx, companyId, settings.capacity);
    if (position !== null) await ctx.waitForProjections(position);
    if (!more || position === null) return;
  }
}

/**
 * Automatic assignment of handed-off conversations (off unless the company turns it on): round-robin among
 * online teammates, each up to the company's capacity of open conversations; a conversation nobody has room
 * for waits in "Needs human" and is assigned as soon as a place frees up. Per event it reads the company's
 * settings, the head of its queue and its online teammates: never a conversation's or the store's history.
 * One company's queue is served per event, at most as far as its team has room.
 */
export const autoAssignmentReactor = defineReactor(schemas, {
  name: 'auto-assignment',
  eventTypes: ['AgentReplied', 'AiSessionPaused', 'HumanRequested', 'DialogTransferred', 'ConversationUnassigned', 'AiSessionClosed', 'AvailabilitySet', 'AutoAssignmentConfigured', 'TeamMemberJoined', 'ConversationRoutedToTeam', 'SupportTeamCreated', 'SupportTeamUpdated'],
  start: (ctx) => async (event) => {
    if (!mayMoveTheQueue(event)) return;
    const companyId = await companyOf(event, ctx);
    if (!companyId) return;
    // Most companies never turn it on: their handoffs and closes (a flood's "AI backlog" handoffs among them)
    // cost one read here, never a wait for the read models that would hold up the thread's other reactors.
    // Turning it on is itself an event, which serves the queue then.
    if (event.type !== 'AutoAssignmentConfigured' && !(await deskSettings(ctx.readStore, companyId)).enabled) return;
    // The decision reads the read models: they must include this event first.
    await ctx.waitForProjections(event.position);
    await balance(ctx, companyId);
  },
});
