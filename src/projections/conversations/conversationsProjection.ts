import { conversationIdOfStream } from '../../domain/conversations/decider.js';
import type { AnswerProvenance } from '../../domain/answers/provenance.js';
import { conversationEvents, type Customer, type DeliveredTo, type HandoffSummary, type PausedReason } from '../../domain/conversations/events.js';
import { DEFAULT_PRIORITY, type Priority } from '../../domain/conversations/triage.js';
import { customerDisplayName, givenName, evolveHandoff, noHandoff, type Handoff, type HandoffTrack } from '../../domain/conversations/state.js';
import type { Doc } from '../../ports/readStore.js';
import { defineProjection, type ProjectionContext, type RecordedEventOf } from '../projection.js';
import { listIndexes } from '../listIndexes.js';

export interface ConversationDoc extends Doc {
  companyId: string;
  integrationId: number;
  connectorType: 'msgplatform' | 'webchat';
  customer: Customer;
  /** The customer as the dashboard names them (list, pipeline card, conversation): see customerDisplayName. */
  customerName: string;
  session: { id: string; state: 'active' | 'paused' | 'closed'; pausedReason?: PausedReason } | null;
  /** Flattened for filtering. */
  sessionState: 'active' | 'paused' | 'closed' | 'none';
  stageId: string | null;
  lastMessageAt: string;
  messageCount: number;
  createdAt: string;
  /** Why the latest customer messages got no AI answer (no agent, LLM failure…), until the next answer. */
  unansweredReason: string | null;
  /** The newest customer message still waiting for an AI answer (null once answered, marked or closed). */
  awaitingReplyTo: string | null;
  /**
   * The AI backlog (GET /api/ai-backlog), one indexed equality plus an order: true while the AI session is active
   * and a customer message waits for its answer. Answers (the AI's, a person's), MessagesUnanswered (handed to
   * people), a pause and a close end it; a resume does not bring it back (nothing queues an answer then: the next
   * customer message does). A customer asking for a person still counts: the AI answers them meanwhile.
   * Documents written before these fields existed read as not waiting until their next event or a rebuild.
   */
  awaitingAi: boolean;
  /** Since when it waits: its oldest customer message not answered yet (null when not awaitingAi). */
  awaitingAiSince: string | null;
  context: { transfers: { dialogId: string | number | null; requestId: string | number | null; at: string }[]; notes: string[] };
  /** The teammate who owns it (null: unassigned). */
  assigneeId: string | null;
  /** The support team it is for (ConversationRoutedToTeam); null: none. Absent on documents written before teams: none. */
  teamId?: string | null;
  /**
   * For the "Mine" and "Unassigned" views, one indexed field: the owner's id while the conversation is open,
   * '' while it is open and unassigned, null once it is closed (resolved conversations leave both views).
   */
  openAssignee: string | null;
  /** The "Needs human" record (evolveHandoff, domain/conversations/state.ts), flattened below for the view's index. */
  handoff: Handoff | null;
  handoffTrack: HandoffTrack;
  needsHuman: boolean;
  /** handoff.since, so the queue sorts longest-waiting first. */
  handoffSince: string | null;
  /** Customer messages received, for unread counts (a teammate's read marker says how many they saw). */
  customerMessageCount: number;
  /** How an operator resolved it, while it stays closed. */
  resolution: string | null;
  /** The inbox row's preview: who wrote the newest message and its first words (never the whole text). */
  lastMessage: LastMessage | null;
  /** The note for whoever takes over the current handoff (HandoffSummarized); null without a handoff or until written. Absent on older documents. */
  handoffSummary?: ConversationHandoffSummary | null;
  /** The newest call the agent asked to make that may wait (confirm, approve): what a pending action shows. Absent until one. */
  requestedCall?: RequestedCall | null;
  /** The call waiting for the customer's yes or a teammate's approval (the inbox's "needs approval"). Absent until one. */
  pendingAction?: PendingActionDoc | null;
  /** Triage (domain/conversations/triage.ts): how urgent, and until when it is snoozed (null: not). */
  priority: Priority;
  snoozedUntil: string | null;
  /**
   * For the "Snoozed" view and the snooze sweep, one indexed field: true while snoozed. A snoozed conversation
   * leaves Mine, Unassigned and Needs human (`openAssignee` null, `needsHuman` false) until it wakes.
   */
  snoozed: boolean;
}

export interface RequestedCall {
  callId: string;
  actionId: string;
  actionName: string;
  /** As recorded: redacted (identity values replaced by their source, long strings cut). */
  arguments: Record<string, string | number | boolean>;
  requestedAt: string;
}

export interface PendingActionDoc extends RequestedCall {
  mode: 'confirm' | 'approve';
  expiresAt: string;
  /** approve: who may decide (null: any teammate) and what the customer was told meanwhile. */
  approverRoles: string[] | null;
  holdingReply: string | null;
  /** confirm: the question the customer was asked. */
  prompt: string | null;
  askedAt: string;
}

export interface LastMessage {
  author: 'customer' | 'agent' | 'operator';
  text: string;
}

/** Enough for one line of the list at its widest; the row ellipsises the rest. */
export const PREVIEW_LENGTH = 160;
const preview = (text: string) => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > PREVIEW_LENGTH ? `${flat.slice(0, PREVIEW_LENGTH - 1)}…` : flat;
};

/** A handoff's summary as the conversation shows it. */
export type ConversationHandoffSummary = HandoffSummary & { since: string; writtenBy: 'llm' | 'extractive'; at: string };

export type MessageDoc = {
  id: string;
  conversationId: string;
  companyId: string;
  seq: number;
  /** `note`: a teammate's internal note (NoteAdded), shown to the team only. */
  author: 'customer' | 'agent' | 'operator' | 'system' | 'note';
  text: string;
  createdAt: string;
  delivery: 'received' | 'pending' | 'sent' | 'failed';
  deliveryError: string | null;
  /** Where a delivered message went ('sandbox': kept in the service, sent nowhere); null until delivered or when not recorded. */
  deliveredTo?: DeliveredTo | null;
  clientMessageId: string | null;
  attachments: unknown[];
  /** What produced an AI reply (AgentReplied): for teammates only, never sent to the customer. Absent on other messages. */
  answer?: AnswerFacts;
  /** An internal note: who wrote it and whom it mentions. Absent on other messages. */
  note?: { authorId: string; mentions: string[] };
};

export interface AnswerFacts {
  model: string;
  inputTokens: number;
  outputTokens: number;
  /** null: the reply was stored before provenance was recorded. */
  provenance: AnswerProvenance | null;
  /** The agent that wrote it (absent when none is known, or on docs built before it was kept). */
  agentId?: string;
  /** The agent version that wrote it; absent on replies stored before versions. */
  agentVersion?: number;
  /** Written in an experiment: which one and which arm; absent otherwise. */
  experiment?: { experimentId: string; arm: 'a' | 'b' | 'holdout' };
}

export const CONVERSATIONS = 'conversations';
export const MESSAGES = 'messages';

const systemNote = (conversationId: string, companyId: string, eventId: string, seq: number, text: string, at: string): MessageDoc => ({
  id: eventId,
  conversationId,
  companyId,
  seq,
  author: 'system',
  text,
  createdAt: at,
  delivery: 'received',
  deliveryError: null,
  clientMessageId: null,
  attachments: [],
});

type ConversationEventType =
  | 'ConversationStarted'
  | 'MessageReceived'
  | 'OperatorMessageRecorded'
  | 'AiSessionOpened'
  | 'AiSessionPaused'
  | 'AiSessionResumed'
  | 'AiSessionClosed'
  | 'ConversationReopened'
  | 'DialogTransferred'
  | 'StageChanged'
  | 'AgentReplied'
  | 'OperatorMessageSent'
  | 'MessageDelivered'
  | 'MessageDeliveryFailed'
  | 'MessagesUnanswered'
  | 'HumanRequested'
  | 'ConversationAssigned'
  | 'ConversationUnassigned'
  | 'ConversationRoutedToTeam'
  | 'HandoffSummarized'
  | 'NoteAdded'
  | 'ConversationPrioritized'
  | 'ConversationSnoozed'
  | 'ConversationWoke'
  | ActionCallType;
/** The action-call events that start or end a wait (the rest of a call's life is the action log's). */
type ActionCallType =
  | 'ActionCallRequested'
  | 'ActionConfirmationAsked'
  | 'ActionApprovalRequested'
  | 'ActionCallConfirmed'
  | 'ActionCallDeclined'
  | 'ActionCallApproved'
  | 'ActionCallRefused'
  | 'ActionApprovalExpired'
  | 'ActionCallRejected'
  | 'ActionCallStarted';
type EventOf<T extends ConversationEventType> = RecordedEventOf<typeof conversationEvents, T>;

/** What a handler gets besides its event: the conversation as it stands, and the batch's read/write context. */
interface Apply {
  id: string;
  doc: ConversationDoc;
  ctx: ProjectionContext;
}
/** A handler returns the conversation's next document, or null to leave it unchanged. */
type Handler<T extends ConversationEventType> = (event: EventOf<T>, on: Apply) => Promise<ConversationDoc | null> | ConversationDoc | null;

/** Appends a message (counting it as the conversation's latest activity) and returns the updated conversation. */
function addMessage(event: EventOf<ConversationEventType>, { id, doc, ctx }: Apply, m: Omit<MessageDoc, 'conversationId' | 'companyId' | 'seq'>): ConversationDoc {
  ctx.put(MESSAGES, { ...m, conversationId: id, companyId: doc.companyId, seq: Number(event.position) } satisfies MessageDoc);
  const lastMessage = m.author === 'system' || m.author === 'note' ? (doc.lastMessage ?? null) : { author: m.author, text: preview(m.text) };
  return { ...doc, messageCount: doc.messageCount + 1, lastMessageAt: m.createdAt, lastMessage };
}

async function setDelivery(ctx: ProjectionContext, messageId: string, delivery: MessageDoc['delivery'], error: string | null, deliveredTo: DeliveredTo | null = null) {
  const m = await ctx.get<MessageDoc>(MESSAGES, messageId);
  if (m) ctx.put(MESSAGES, { ...m, delivery, deliveryError: error, ...(deliveredTo ? { deliveredTo } : {}) });
}

/**
 * After an answer or MessagesUnanswered covering `settled`: nothing waits when it covered the newest customer
 * message. A message that came in while the answer was being written is not covered and still waits, since it
 * arrived (its own job answers it).
 */
async function stillAwaiting({ doc, ctx }: Apply, settled: string[]): Promise<Pick<ConversationDoc, 'awaitingReplyTo' | 'awaitingAiSince'>> {
  const newest = doc.awaitingReplyTo;
  if (!newest || settled.includes(newest)) return { awaitingReplyTo: null, awaitingAiSince: null };
  const message = await ctx.get<MessageDoc>(MESSAGES, newest);
  return { awaitingReplyTo: newest, awaitingAiSince: doc.awaitingAiSince ? (message?.createdAt ?? doc.awaitingAiSince) : null };
}

const sessionMoved = (doc: ConversationDoc, session: NonNullable<ConversationDoc['session']>): ConversationDoc => ({ ...doc, session, sessionState: session.state });

/** One handler per event type (ConversationStarted creates the document; the others change it). */
const handlers: { [T in Exclude<ConversationEventType, 'ConversationStarted' | ActionCallType>]: Handler<T> } = {
  MessageReceived: (event, on) => {
    // The client's name as the platform (or the web chat page) sends it with a message: the latest one names them.
    const given = givenName(event.data.client?.name);
    const customerName = given ? customerDisplayName(on.doc.integrationId, on.doc.customer, given) : on.doc.customerName;
    // Only an active session answers it (a paused one leaves it to people; the session opens before the message).
    const awaitingAiSince = on.doc.sessionState === 'active' ? (on.doc.awaitingAiSince ?? event.data.at) : null;
    const doc = { ...on.doc, customerName, awaitingReplyTo: event.data.messageId, awaitingAiSince, customerMessageCount: (on.doc.customerMessageCount ?? 0) + 1 };
    return addMessage(event, { ...on, doc }, {
      id: event.data.messageId,
      author: 'customer',
      text: event.data.text,
      createdAt: event.data.at,
      delivery: 'received',
      deliveryError: null,
      clientMessageId: event.data.clientMessageId ?? null,
      attachments: event.data.attachments ?? [],
    });
  },
  OperatorMessageRecorded: (event, on) =>
    addMessage(event, { ...on, doc: { ...on.doc, awaitingAiSince: null } }, { id: event.data.messageId, author: 'operator', text: event.data.text, createdAt: event.data.at, delivery: 'sent', deliveryError: null, clientMessageId: null, attachments: event.data.attachments ?? [] }),
  AgentReplied: async (event, on) =>
    // The handoff message sent because the model failed answers the customer, not the reason it failed.
    addMessage(event, { ...on, doc: { ...on.doc, unansweredReason: event.data.aiFailed ? on.doc.unansweredReason : null, ...(await stillAwaiting(on, event.data.inReplyTo)) } }, {
      id: event.data.messageId,
      author: 'agent',
      text: event.data.text,
      createdAt: event.data.at,
      delivery: 'pending',
      deliveryError: null,
      clientMessageId: null,
      attachments: [],
      answer: {
        model: event.data.model,
        inputTokens: event.data.inputTokens,
        outputTokens: event.data.outputTokens,
        provenance: event.data.provenance ?? null,
        ...(event.data.agentId ? { agentId: event.data.agentId } : {}),
        ...(event.data.agentVersion !== undefined ? { agentVersion: event.data.agentVersion } : {}),
        ...(event.data.experiment ? { experiment: event.data.experiment } : {}),
      },
    }),
  OperatorMessageSent: (event, on) =>
    addMessage(event, { ...on, doc: { ...on.doc, awaitingAiSince: null } }, { id: event.data.messageId, author: 'operator', text: event.data.text, createdAt: event.data.at, delivery: 'pending', deliveryError: null, clientMessageId: null, attachments: [] }),
  MessageDelivered: async (event, { ctx, doc }) => {
    await setDelivery(ctx, event.data.messageId, 'sent', null, event.data.deliveredTo ?? null);
    return doc;
  },
  MessageDeliveryFailed: async (event, { ctx, doc }) => {
    await setDelivery(ctx, event.data.messageId, 'failed', event.data.reason);
    return doc;
  },
  MessagesUnanswered: async (event, on) => {
    const { id, doc, ctx } = on;
    ctx.put(MESSAGES, systemNote(id, doc.companyId, event.id, Number(event.position), `Not answered by the AI agent: ${event.data.reason}`, event.data.at));
    return { ...doc, unansweredReason: event.data.reason, ...(await stillAwaiting(on, event.data.messageIds)) };
  },
  AiSessionOpened: (event, { doc }) => sessionMoved(doc, { id: event.data.sessionId, state: 'active' }),
  AiSessionPaused: (event, { doc }) => sessionMoved({ ...doc, awaitingAiSince: null }, { id: event.data.sessionId, state: 'paused', pausedReason: event.data.reason }),
  AiSessionResumed: (event, { doc }) => sessionMoved(doc, { id: event.data.sessionId, state: 'active' }),
  AiSessionClosed: (event, { doc }) =>
    sessionMoved({ ...doc, awaitingReplyTo: null, awaitingAiSince: null, resolution: event.data.resolution ?? null }, { id: event.data.sessionId, state: 'closed' }),
  ConversationReopened: (event, { doc }) => sessionMoved({ ...doc, resolution: null }, { id: event.data.sessionId, state: 'active' }),
  DialogTransferred: (event, { doc }) => ({
    ...doc,
    context: { ...doc.context, transfers: [...doc.context.transfers, { dialogId: event.data.dialogId, requestId: event.data.requestId, at: event.data.at }] },
  }),
  StageChanged: (event, { doc }) => ({ ...doc, stageId: event.data.stageId }),
  HumanRequested: (_event, { doc }) => doc,
  ConversationAssigned: (event, { doc }) => ({ ...doc, assigneeId: event.data.assigneeId }),
  ConversationUnassigned: (_event, { doc }) => ({ ...doc, assigneeId: null }),
  ConversationRoutedToTeam: (event, { doc }) => ({ ...doc, teamId: event.data.teamId }),
  ConversationPrioritized: (event, { doc }) => ({ ...doc, priority: event.data.priority }),
  ConversationSnoozed: (event, { doc }) => ({ ...doc, snoozedUntil: event.data.until }),
  ConversationWoke: (_event, { doc }) => ({ ...doc, snoozedUntil: null }),
  HandoffSummarized: (event, { doc }) => {
    const { wants, tried, sources, why, since, writtenBy, at } = event.data;
    return { ...doc, handoffSummary: { wants, tried, sources, why, since, writtenBy, at } };
  },
  // In the timeline, not the inbox row: a note is no activity of the customer's conversation (no count, no preview).
  NoteAdded: (event, { id, doc, ctx }) => {
    const d = event.data;
    ctx.put(MESSAGES, {
      id: d.noteId,
      conversationId: id,
      companyId: doc.companyId,
      seq: Number(event.position),
      author: 'note',
      text: d.text,
      createdAt: d.at,
      delivery: 'received',
      deliveryError: null,
      clientMessageId: null,
      attachments: [],
      note: { authorId: d.authorId, mentions: d.mentions },
    } satisfies MessageDoc);
    return null;
  },
};

/** The pending action while it waits: set when the question is asked, cleared by whatever ends the wait. */
const endsWait = <T extends ActionCallType>(event: EventOf<T>, { doc }: Apply): ConversationDoc =>
  doc.pendingAction && doc.pendingAction.callId === (event.data as { callId: string }).callId ? { ...doc, pendingAction: null } : doc;

const actionCallHandlers: { [T in ActionCallType]: Handler<T> } = {
  ActionCallRequested: (event, { doc }) => {
    if (event.data.mode === 'auto') return doc;
    const { callId, actionId, actionName, arguments: args, at } = event.data;
    return { ...doc, requestedCall: { callId, actionId, actionName, arguments: args, requestedAt: at } };
  },
  ActionConfirmationAsked: (event, { doc }) => {
    const requested = doc.requestedCall;
    if (requested?.callId !== event.data.callId) return doc;
    const wait = { mode: 'confirm' as const, expiresAt: event.data.expiresAt, approverRoles: null, holdingReply: null, prompt: event.data.prompt, askedAt: event.data.at };
    return { ...doc, pendingAction: { ...requested, ...wait } };
  },
  ActionApprovalRequested: (event, { doc }) => {
    const requested = doc.requestedCall;
    if (requested?.callId !== event.data.callId) return doc;
    const d = event.data;
    return { ...doc, pendingAction: { ...requested, mode: 'approve', expiresAt: d.expiresAt, approverRoles: d.approverRoles, holdingReply: d.holdingReply, prompt: null, askedAt: d.at } };
  },
  ActionCallConfirmed: endsWait,
  ActionCallDeclined: endsWait,
  ActionCallApproved: endsWait,
  ActionCallRefused: endsWait,
  ActionApprovalExpired: endsWait,
  ActionCallRejected: endsWait,
  ActionCallStarted: endsWait,
};

/** The inbox fields every event may move: the handoff (folded exactly as the decider folds it) and the views' keys. */
function withInbox(doc: ConversationDoc, event: EventOf<ConversationEventType>): ConversationDoc {
  const handoffTrack = evolveHandoff(doc.handoffTrack ?? noHandoff, event);
  const assigneeId = doc.assigneeId ?? null;
  // Missing on documents written before the AI backlog existed: not waiting.
  const awaitingAiSince = doc.sessionState === 'active' ? (doc.awaitingAiSince ?? null) : null;
  // Missing on documents written before triage: normal, not snoozed. A resolved conversation is in no queue, the
  // Snoozed view included (reopened before its time, it is snoozed again until then; after it, the sweep wakes it).
  const snoozedUntil = doc.snoozedUntil ?? null;
  const snoozed = snoozedUntil !== null && doc.sessionState !== 'closed';
  return {
    ...doc,
    teamId: doc.teamId ?? null,
    awaitingAi: awaitingAiSince !== null,
    awaitingAiSince,
    assigneeId,
    openAssignee: doc.sessionState === 'closed' || snoozed ? null : (assigneeId ?? ''),
    handoffTrack,
    handoff: handoffTrack.handoff,
    needsHuman: handoffTrack.handoff !== null && !snoozed,
    handoffSince: handoffTrack.handoff?.since ?? null,
    // A summary belongs to its handoff: it goes when the handoff ends, and a new handoff waits for its own.
    handoffSummary: doc.handoffSummary && doc.handoffSummary.since === handoffTrack.handoff?.since ? doc.handoffSummary : null,
    customerMessageCount: doc.customerMessageCount ?? 0,
    resolution: doc.resolution ?? null,
    // Missing on documents written before previews existed: no preview until the next message or a rebuild.
    lastMessage: doc.lastMessage ?? null,
    priority: doc.priority ?? DEFAULT_PRIORITY,
    snoozedUntil,
    snoozed,
  };
}

const started = (id: string, event: EventOf<'ConversationStarted'>): ConversationDoc => ({
  id,
  companyId: event.data.companyId,
  integrationId: event.data.integrationId,
  connectorType: event.data.connectorType,
  customer: event.data.customer,
  customerName: customerDisplayName(event.data.integrationId, event.data.customer),
  session: null,
  sessionState: 'none',
  stageId: event.data.stageId,
  lastMessageAt: event.data.at,
  messageCount: 0,
  createdAt: event.data.at,
  unansweredReason: null,
  awaitingReplyTo: null,
  awaitingAi: false,
  awaitingAiSince: null,
  context: { transfers: [], notes: [] },
  assigneeId: null,
  teamId: null,
  openAssignee: '',
  handoff: null,
  handoffTrack: noHandoff,
  needsHuman: false,
  handoffSince: null,
  customerMessageCount: 0,
  resolution: null,
  lastMessage: null,
  handoffSummary: null,
  priority: DEFAULT_PRIORITY,
  snoozedUntil: null,
  snoozed: false,
});

const allHandlers = { ...handlers, ...actionCallHandlers };
const EVENT_TYPES: ConversationEventType[] = ['ConversationStarted', ...(Object.keys(allHandlers) as ConversationEventType[])];

/**
 * The conversation list's indexes (projections/conversations/queries.ts listConversations): the company, the
 * inbox view's field (none; Mine / Unassigned: `openAssignee`; Needs human: `needsHuman`; Snoozed: `snoozed`), any
 * of the filters state, integration and stage (the API combines them), then the view's order (newest activity
 * first; Needs human: longest waiting first; Snoozed: soonest back first). One compound index per combination,
 * so every page is read off an index in order, never sorted in memory: 4 views × 8 filter sets.
 */
function conversationListIndexes(): string[][] {
  const filters = ['sessionState', 'integrationId', 'stageId'];
  return [
    ...listIndexes(['companyId'], filters, ['lastMessageAt']),
    ...listIndexes(['companyId', 'openAssignee'], filters, ['lastMessageAt']),
    ...listIndexes(['companyId', 'needsHuman'], filters, ['handoffSince']),
    // Snoozed: the soonest back first.
    ...listIndexes(['companyId', 'snoozed'], filters, ['snoozedUntil']),
    // The team filter combines with a view, not with the other filters (the index count stays under MongoDB's 64).
    ['companyId', 'teamId', 'lastMessageAt'],
    ['companyId', 'openAssignee', 'teamId', 'lastMessageAt'],
    ['companyId', 'needsHuman', 'teamId', 'handoffSince'],
    ['companyId', 'snoozed', 'teamId', 'snoozedUntil'],
  ];
}

/** Conversation list and detail, with their messages (customer, agent, operator, and system notes). */
export const conversationsProjection = defineProjection(conversationEvents, {
  name: 'conversations',
  collections: [
    {
      name: CONVERSATIONS,
      indexes: [
        ...conversationListIndexes(),
        // The start-up sweep of the embedded bus: active sessions awaiting a reply (residual filter in memory).
        'sessionState',
        // A removed teammate's conversations, open or closed, to give back (a page at a time).
        ['companyId', 'assigneeId'],
        // Handoffs waiting longest, across companies: the notification sweep's query.
        ['needsHuman', 'handoffSince'],
        // The AI backlog: how many wait for an AI answer, and the oldest of them.
        ['companyId', 'awaitingAi', 'awaitingAiSince'],
        // The snooze sweep: snoozes due soonest, across companies.
        ['snoozed', 'snoozedUntil'],
      ],
    },
    { name: MESSAGES, indexes: [['conversationId', 'seq'], 'conversationId', 'seq', 'delivery'] },
  ],
  eventTypes: EVENT_TYPES,
  async apply(event, ctx) {
    const id = conversationIdOfStream(event.stream);
    if (event.type === 'ConversationStarted') {
      ctx.put(CONVERSATIONS, started(id, event));
      return;
    }
    const doc = await ctx.get<ConversationDoc>(CONVERSATIONS, id);
    if (!doc) return;
    const handler = allHandlers[event.type] as Handler<typeof event.type>;
    const next = await handler(event as never, { id, doc, ctx });
    ctx.put(CONVERSATIONS, withInbox(next ?? doc, event));
  },
});
