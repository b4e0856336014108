import { inAppNotificationEvents, type InAppNotificationKind } from '../../domain/accounts/notifications/inApp/events.js';
import { teamEvents } from '../../domain/accounts/team/events.js';
import { userEvents } from '../../domain/accounts/user/events.js';
import { conversationIdOfStream } from '../../domain/conversations/decider.js';
import { conversationEvents } from '../../domain/conversations/events.js';
import { customerDisplayName, evolveHandoff, noHandoff, type HandoffTrack } from '../../domain/conversations/state.js';
import type { Doc } from '../../ports/readStore.js';
import { listIndexes } from '../listIndexes.js';
import { defineProjection, type ProjectionContext, type RecordedEventOf } from '../projection.js';

/** One in-app notification of one teammate (the bell's list). */
export interface NotificationDoc extends Doc {
  companyId: string;
  userId: string;
  kind: InAppNotificationKind;
  conversationId: string;
  /** The customer of the conversation, as the inbox names them. */
  customerName: string;
  /** The teammate who caused it (assigned it, wrote the note); null: no person (automatic assignment, a handoff). */
  byUserId: string | null;
  /** A mention: the note's opening (NOTIFICATION_EXCERPT characters); null otherwise. Never sent anywhere but the dashboard. */
  excerpt: string | null;
  createdAt: string;
  /** Event position: the newest first. */
  seq: number;
  read: boolean;
}

/** What the projection keeps of a conversation to tell who to notify: its company, customer, owner and handoff. */
interface NotificationConversationDoc extends Doc {
  companyId: string;
  customerName: string;
  assigneeId: string | null;
  handoff: HandoffTrack;
}

/** A company's owners and admins: who hears of a handoff nobody has taken. Bounded. */
interface NotificationManagersDoc extends Doc {
  managers: string[];
}

export const NOTIFICATIONS = 'notifications';
const CONVERSATIONS = 'notification_conversations';
const MANAGERS = 'notification_managers';
export const NOTIFICATION_EXCERPT = 200;
const MANAGERS_KEPT = 20;

/** The bell's queries: a teammate's own notifications, all or unread only, newest first. */
export const NOTIFICATION_INDEXES = listIndexes(['companyId', 'userId'], ['read'], ['seq']);

const schemas = { ...conversationEvents, ...teamEvents, ...userEvents, ...inAppNotificationEvents };
type Schemas = typeof schemas;
const HANDOFF_EVENTS = [
  'MessageReceived',
  'AgentReplied',
  'MessagesUnanswered',
  'ActionApprovalExpired',
  'AiSessionPaused',
  'HumanRequested',
  'DialogTransferred',
  'OperatorMessageSent',
  'OperatorMessageRecorded',
  'AiSessionClosed',
  'AiSessionResumed',
] as const;
type Handled = 'ConversationStarted' | 'ConversationAssigned' | 'ConversationUnassigned' | 'NoteAdded' | (typeof HANDOFF_EVENTS)[number];
type ConversationEventOf = RecordedEventOf<Schemas, Handled>;

const userOf = (by: string) => (by.startsWith('user:') ? by.slice('user:'.length) : null);

function notify(ctx: ProjectionContext, event: { id: string; position: bigint }, conversation: NotificationConversationDoc & { id: string }, userId: string, n: Pick<NotificationDoc, 'kind' | 'byUserId' | 'excerpt' | 'createdAt'>) {
  ctx.put(NOTIFICATIONS, {
    id: `${event.id}:${userId}`,
    companyId: conversation.companyId,
    userId,
    conversationId: conversation.id,
    customerName: conversation.customerName,
    ...n,
    seq: Number(event.position),
    read: false,
  } satisfies NotificationDoc);
}

async function applyConversationEvent(event: ConversationEventOf, ctx: ProjectionContext): Promise<void> {
  const id = conversationIdOfStream(event.stream);
  if (event.type === 'ConversationStarted') {
    const d = event.data;
    ctx.put(CONVERSATIONS, { id, companyId: d.companyId, customerName: customerDisplayName(d.integrationId, d.customer), assigneeId: null, handoff: noHandoff } satisfies NotificationConversationDoc);
    return;
  }
  const conversation = await ctx.get<NotificationConversationDoc>(CONVERSATIONS, id);
  if (!conversation) return;
  switch (event.type) {
    case 'ConversationAssigned': {
      ctx.put(CONVERSATIONS, { ...conversation, assigneeId: event.data.assigneeId });
      // Taking a conversation yourself is no news to you.
      if (event.data.by !== `user:${event.data.assigneeId}`) notify(ctx, event, conversation, event.data.assigneeId, { kind: 'assigned', byUserId: userOf(event.data.by), excerpt: null, createdAt: event.data.at });
      return;
    }
    case 'ConversationUnassigned':
      ctx.put(CONVERSATIONS, { ...conversation, assigneeId: null });
      return;
    case 'NoteAdded':
      for (const userId of event.data.mentions) {
        if (userId !== event.data.authorId) notify(ctx, event, conversation, userId, { kind: 'mentioned', byUserId: event.data.authorId, excerpt: event.data.text.slice(0, NOTIFICATION_EXCERPT), createdAt: event.data.at });
      }
      return;
    default: {
      // The same fold as the "Needs human" queue (evolveHandoff): a notification when the conversation joins it.
      const handoff = evolveHandoff(conversation.handoff, event as Parameters<typeof evolveHandoff>[1]);
      if (handoff === conversation.handoff) return;
      ctx.put(CONVERSATIONS, { ...conversation, handoff });
      if (conversation.handoff.handoff || !handoff.handoff) return;
      const recipients = conversation.assigneeId ? [conversation.assigneeId] : ((await ctx.get<NotificationManagersDoc>(MANAGERS, conversation.companyId))?.managers ?? []);
      for (const userId of recipients) notify(ctx, event, conversation, userId, { kind: 'handoff_waiting', byUserId: null, excerpt: null, createdAt: handoff.handoff.since });
    }
  }
}

/** Keeps each company's owners and admins from its team stream (a company from before teams: its first user). */
async function applyTeamEvent(event: RecordedEventOf<Schemas, 'TeamMemberJoined' | 'TeamMemberRoleChanged' | 'TeamMemberRemoved' | 'UserRegistered'>, ctx: ProjectionContext) {
  const companyId = event.type === 'UserRegistered' ? event.data.companyId : event.stream.slice('team-'.length);
  const doc = await ctx.get<NotificationManagersDoc>(MANAGERS, companyId);
  // Team members are recorded before their user: a user registered into a company with no team record is its owner.
  if (event.type === 'UserRegistered' && doc) return;
  const managers = (doc?.managers ?? []).filter((id) => id !== event.data.userId);
  const manager = event.type === 'UserRegistered' || ((event.type === 'TeamMemberJoined' || event.type === 'TeamMemberRoleChanged') && event.data.role !== 'agent');
  ctx.put(MANAGERS, { id: companyId, managers: manager ? [...managers, event.data.userId].slice(-MANAGERS_KEPT) : managers } satisfies NotificationManagersDoc);
}

/**
 * Each teammate's in-app notifications: a conversation assigned to them, a note that mentions them, a handoff
 * waiting for them (or, while nobody has it, for the owners and admins). Read marks come from NotificationsRead.
 * Constant cost per event: a conversation's helper document and at most one document per recipient.
 */
export const notificationsProjection = defineProjection(schemas, {
  name: 'notifications',
  collections: [
    { name: NOTIFICATIONS, indexes: NOTIFICATION_INDEXES },
    { name: CONVERSATIONS, indexes: [] },
    { name: MANAGERS, indexes: [] },
  ],
  eventTypes: ['ConversationStarted', 'ConversationAssigned', 'ConversationUnassigned', 'NoteAdded', ...HANDOFF_EVENTS, 'TeamMemberJoined', 'TeamMemberRoleChanged', 'TeamMemberRemoved', 'UserRegistered', 'NotificationsRead'],
  async apply(event, ctx) {
    if (event.type === 'NotificationsRead') {
      for (const id of event.data.notificationIds) {
        const doc = await ctx.get<NotificationDoc>(NOTIFICATIONS, id);
        if (doc && doc.userId === event.data.userId && !doc.read) ctx.put(NOTIFICATIONS, { ...doc, read: true });
      }
      return;
    }
    if (event.type === 'TeamMemberJoined' || event.type === 'TeamMemberRoleChanged' || event.type === 'TeamMemberRemoved' || event.type === 'UserRegistered') return applyTeamEvent(event, ctx);
    return applyConversationEvent(event as ConversationEventOf, ctx);
  },
});
