import { availabilityEvents, type Availability } from '../../domain/accounts/availability/events.js';
import { DEFAULT_AVAILABILITY } from '../../domain/accounts/availability/state.js';
import { teamEvents } from '../../domain/accounts/team/events.js';
import { userEvents } from '../../domain/accounts/user/events.js';
import { autoAssignmentEvents } from '../../domain/company/autoAssignment/events.js';
import { companyIdOfAutoAssignmentStream } from '../../domain/company/autoAssignment/decider.js';
import { conversationIdOfStream } from '../../domain/conversations/decider.js';
import { conversationEvents } from '../../domain/conversations/events.js';
import { evolveHandoff, noHandoff, type HandoffTrack } from '../../domain/conversations/state.js';
import type { Doc } from '../../ports/readStore.js';
import { defineProjection, type ProjectionContext, type RecordedEventOf } from '../projection.js';

/**
 * What automatic assignment decides on, kept as counts so a decision costs the same however long the company
 * has run: per teammate their availability and how many open conversations they own; per conversation whether
 * it waits for an owner (handed off, open, unassigned); per company the settings.
 */
export interface DeskTeammateDoc extends Doc {
  companyId: string;
  /** False once removed from the team. */
  member: boolean;
  availability: Availability;
  /** Open conversations assigned to them (closing, unassigning or reassigning one frees a place). */
  open: number;
  /** When they were last given a conversation (the round-robin's order: longest ago first). */
  lastAssignedAt: string | null;
}

export interface DeskConversationDoc extends Doc {
  companyId: string;
  /** Where it came from (the routing's key). Absent on documents written before teams. */
  integrationId?: number;
  /** The support team it is for: automatic assignment picks among its members. Null or absent: the whole company. */
  teamId?: string | null;
  /** teamId, '' for none: the queue per team is one indexed lookup. Absent on documents written before teams. */
  queue?: string;
  assigneeId: string | null;
  /** Not closed (a conversation with no session yet counts as open, as in the inbox views). */
  open: boolean;
  handoffTrack: HandoffTrack;
  /** Handed off, open and unassigned: in the queue automatic assignment serves, oldest first. */
  waiting: boolean;
  waitingSince: string | null;
}

export interface DeskSettingsDoc extends Doc {
  enabled: boolean;
  capacity: number;
}

export const DESK_TEAMMATES = 'deskTeammates';
export const DESK_CONVERSATIONS = 'deskConversations';
export const DESK_SETTINGS = 'deskSettings';

const schemas = { ...conversationEvents, ...teamEvents, ...userEvents, ...availabilityEvents, ...autoAssignmentEvents };

const CONVERSATION_TYPES = [
  'ConversationStarted',
  'MessageReceived',
  'AgentReplied',
  'MessagesUnanswered',
  'AiSessionOpened',
  'AiSessionPaused',
  'AiSessionResumed',
  'AiSessionClosed',
  'ConversationReopened',
  'HumanRequested',
  'DialogTransferred',
  'OperatorMessageSent',
  'OperatorMessageRecorded',
  'ConversationAssigned',
  'ConversationUnassigned',
  'ConversationRoutedToTeam',
] as const;
type ConversationType = (typeof CONVERSATION_TYPES)[number];
type DeskEvent = RecordedEventOf<typeof schemas, ConversationType | 'TeamMemberJoined' | 'TeamMemberRemoved' | 'UserRegistered' | 'AvailabilitySet' | 'AutoAssignmentConfigured'>;

const newTeammate = (id: string, companyId: string): DeskTeammateDoc => ({ id, companyId, member: true, availability: DEFAULT_AVAILABILITY, open: 0, lastAssignedAt: null });

/** Moves one of `userId`'s open conversations in (+1) or out (-1). */
async function countOpen(ctx: ProjectionContext, userId: string | null, by: 1 | -1, assignedAt: string | null = null) {
  if (!userId) return;
  const doc = await ctx.get<DeskTeammateDoc>(DESK_TEAMMATES, userId);
  if (!doc) return;
  ctx.put(DESK_TEAMMATES, { ...doc, open: Math.max(0, doc.open + by), ...(assignedAt ? { lastAssignedAt: assignedAt } : {}) });
}

const withQueue = (doc: DeskConversationDoc): DeskConversationDoc => {
  const waiting = doc.open && doc.assigneeId === null && doc.handoffTrack.handoff !== null;
  return { ...doc, teamId: doc.teamId ?? null, queue: doc.teamId ?? '', waiting, waitingSince: waiting ? doc.handoffTrack.handoff!.since : null };
};

async function applyConversation(event: RecordedEventOf<typeof conversationEvents, ConversationType>, ctx: ProjectionContext) {
  const id = conversationIdOfStream(event.stream);
  if (event.type === 'ConversationStarted') {
    ctx.put(DESK_CONVERSATIONS, withQueue({ id, companyId: event.data.companyId, integrationId: event.data.integrationId, teamId: null, assigneeId: null, open: true, handoffTrack: noHandoff, waiting: false, waitingSince: null }));
    return;
  }
  const before = await ctx.get<DeskConversationDoc>(DESK_CONVERSATIONS, id);
  if (!before) return;
  let doc: DeskConversationDoc = { ...before, handoffTrack: evolveHandoff(before.handoffTrack, event) };
  switch (event.type) {
    case 'ConversationAssigned':
      if (doc.open) {
        await countOpen(ctx, doc.assigneeId, -1);
        await countOpen(ctx, event.data.assigneeId, 1, event.data.at);
      }
      doc = { ...doc, assigneeId: event.data.assigneeId };
      break;
    case 'ConversationUnassigned':
      if (doc.open) await countOpen(ctx, doc.assigneeId, -1);
      doc = { ...doc, assigneeId: null };
      break;
    case 'ConversationRoutedToTeam':
      doc = { ...doc, teamId: event.data.teamId };
      break;
    case 'AiSessionClosed':
      if (doc.open) await countOpen(ctx, doc.assigneeId, -1);
      doc = { ...doc, open: false };
      break;
    case 'AiSessionOpened':
    case 'ConversationReopened':
      if (!doc.open) await countOpen(ctx, doc.assigneeId, 1);
      doc = { ...doc, open: true };
      break;
    default:
      break;
  }
  ctx.put(DESK_CONVERSATIONS, withQueue(doc));
}

async function applyTeam(event: DeskEvent, ctx: ProjectionContext) {
  if (event.type === 'UserRegistered') {
    // As in the teammates read model: a user with no document yet is the owner of a company registered
    // before teams existed (members are recorded on the team stream before their user).
    if (!(await ctx.get(DESK_TEAMMATES, event.data.userId))) ctx.put(DESK_TEAMMATES, newTeammate(event.data.userId, event.data.companyId));
    return;
  }
  if (event.type === 'TeamMemberJoined' || event.type === 'TeamMemberRemoved') {
    const companyId = event.stream.slice('team-'.length);
    const doc = await ctx.get<DeskTeammateDoc>(DESK_TEAMMATES, event.data.userId);
    if (event.type === 'TeamMemberJoined') ctx.put(DESK_TEAMMATES, doc ? { ...doc, companyId, member: true } : newTeammate(event.data.userId, companyId));
    else if (doc && doc.companyId === companyId) ctx.put(DESK_TEAMMATES, { ...doc, member: false });
    return;
  }
  if (event.type === 'AvailabilitySet') {
    const doc = await ctx.get<DeskTeammateDoc>(DESK_TEAMMATES, event.data.userId);
    if (doc && doc.companyId === event.data.companyId) ctx.put(DESK_TEAMMATES, { ...doc, availability: event.data.availability });
    return;
  }
  if (event.type === 'AutoAssignmentConfigured') {
    ctx.put(DESK_SETTINGS, { id: companyIdOfAutoAssignmentStream(event.stream), enabled: event.data.enabled, capacity: event.data.capacity } satisfies DeskSettingsDoc);
  }
}

const conversationTypes = new Set<string>(CONVERSATION_TYPES);

/** The assignment desk: teammates' availability and open load, the queue of conversations waiting for an owner, and the settings. */
export const assignmentDeskProjection = defineProjection(schemas, {
  name: 'assignmentDesk',
  collections: [
    // Round-robin: the company's members who are online, longest since their last assignment first.
    { name: DESK_TEAMMATES, indexes: [['companyId', 'member', 'availability', 'lastAssignedAt']] },
    // The queue: the company's conversations waiting for an owner, oldest first.
    { name: DESK_CONVERSATIONS, indexes: [['companyId', 'waiting', 'waitingSince'], ['companyId', 'queue', 'waiting', 'waitingSince']] },
    { name: DESK_SETTINGS, indexes: [] },
  ],
  eventTypes: [...CONVERSATION_TYPES, 'TeamMemberJoined', 'TeamMemberRemoved', 'UserRegistered', 'AvailabilitySet', 'AutoAssignmentConfigured'],
  async apply(event, ctx) {
    if (conversationTypes.has(event.type)) await applyConversation(event as RecordedEventOf<typeof conversationEvents, ConversationType>, ctx);
    else await applyTeam(event, ctx);
  },
});
