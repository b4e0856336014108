import type { PlatformId } from '../platformId.js';
import { emptyDedupeWindow, findKey, rememberKey, type DedupeWindow } from './dedupeWindow.js';
import type { ConversationEvent, ConversationStreamEvent, Customer, PausedReason } from './events.js';
import { evolveHandoff, noHandoff, type HandoffTrack } from './handoff.js';
import type { CsatVia } from './csat.js';
import type { ActionCallEventType } from './actionCalls.js';
import type { ExperimentAssignment } from '../agents/experiments.js';

export type SessionState = 'active' | 'paused' | 'closed';

export interface ConversationState {
  exists: boolean;
  conversationId: string | null;
  companyId: string | null;
  integrationId: number | null;
  connectorType: 'msgplatform' | 'webchat' | null;
  customer: Customer | null;
  stageId: string | null;
  session: { id: string; state: SessionState; pausedReason: PausedReason | null } | null;
  /** The newest dedupe keys of accepted deliveries (dedupeWindow.ts). */
  dedupe: DedupeWindow;
  /** Customer messages received since the last answer: a burst is answered once, together. */
  unanswered: string[];
  /** When the newest customer message arrived (the burst window counts from it). */
  lastCustomerMessageAt: string | null;
  /** Messages we send (agent replies, operator messages) whose delivery is not settled, with send attempts recorded. */
  outbound: Record<string, { attempts: number }>;
  /** The newest settled outbound messages, so a redelivered outcome records nothing. */
  settled: { messageId: string; outcome: 'sent' | 'failed' }[];
  /** Agent reply ids recently appended, so a redelivered reply job appends nothing. */
  replies: string[];
  /** What we sent recently, to recognise the platform echoing our own messages back as "outbox". */
  sentPlatformIds: PlatformId[];
  /** Fingerprints (length + ends) of recently sent texts: bounded memory whatever the texts' size. */
  recentSentTexts: string[];
  messageCount: number;
  /** The teammate (user id) who owns the conversation; null: unassigned. */
  assigneeId: string | null;
  /** The "Needs human" record and what it is derived from (handoff.ts). */
  handoff: HandoffTrack;
  /** The agent that answered last (who a CSAT rating is for). */
  lastAgentId: string | null;
  /** In the current session: someone answered, and the customer wrote after an answer (CSAT's "customer replied"). */
  sessionAnswered: boolean;
  sessionCustomerReplied: boolean;
  /** The newest CSAT survey: waiting for an answer while its session stays closed and it is not answered. */
  survey: { surveyId: string; sessionId: string; via: CsatVia; agentId: string | null; teammateId: string | null; answered: boolean } | null;
  /** When people last took or touched the conversation (a pause, a teammate's message): a hand-back timeout counts from it. */
  peopleSince: string | null;
  /** The handoff (its `since`) the newest HandoffSummarized summarises: one summary per handoff. */
  summarizedHandoff: string | null;
  /** The experiment arm the conversation joined (ExperimentArmAssigned); absent: none yet. */
  experiment?: { experimentId: string; arm: ExperimentAssignment; version: number | null };
  /** The action call waiting for the customer's yes or a teammate's approval (actionCalls.ts); null: none. */
  pendingAction: PendingAction | null;
  /** Calls started whose outcome is not recorded yet (a crash between the two): never made again blindly. Bounded. */
  startedCalls: string[];
  /** The newest requested call (what its confirmation or approval request refers to). */
  lastRequestedCall: { callId: string; actionId: string; replyId: string } | null;
  /** The web-chat visitor's signed identity (CustomerIdentityVerified); null: not verified. */
  verifiedVisitor: { userId: string; email: string | null } | null;
  /** The newest calls that stopped waiting, and how: a second decision on one is told apart from an unknown call. Bounded. */
  decidedCalls: DecidedCall[];
}

export interface DecidedCall {
  callId: string;
  decision: 'approved' | 'refused' | 'expired' | 'confirmed' | 'declined';
}

export interface PendingAction {
  callId: string;
  actionId: string;
  replyId: string;
  mode: 'confirm' | 'approve';
  expiresAt: string;
  /** The message that asked (the confirmation question or the holding reply). */
  askedIn: string;
  approverRoles: string[] | null;
}

export const initialConversationState: ConversationState = {
  exists: false,
  conversationId: null,
  companyId: null,
  integrationId: null,
  connectorType: null,
  customer: null,
  stageId: null,
  session: null,
  dedupe: emptyDedupeWindow,
  unanswered: [],
  lastCustomerMessageAt: null,
  outbound: {},
  settled: [],
  replies: [],
  sentPlatformIds: [],
  recentSentTexts: [],
  messageCount: 0,
  assigneeId: null,
  handoff: noHandoff,
  lastAgentId: null,
  sessionAnswered: false,
  sessionCustomerReplied: false,
  survey: null,
  peopleSince: null,
  summarizedHandoff: null,
  pendingAction: null,
  startedCalls: [],
  lastRequestedCall: null,
  verifiedVisitor: null,
  decidedCalls: [],
};

/** Every per-conversation list is bounded: the state's size, and the cost of folding one event, never grow with the conversation. */
const RECENT_KEPT = 50;
const REPLIES_KEPT = 100;
/**
 * A customer writing without pause (or a bot loop) would otherwise grow the list of messages awaiting an
 * answer without end: the answer covers the newest ones, and the prompt holds no more than these anyway.
 */
export const UNANSWERED_KEPT = 50;

const keepLast = <T>(list: T[], item: T, max: number) => (list.length < max ? [...list, item] : [...list.slice(list.length - max + 1), item]);

/** A bounded stand-in for a sent text, to recognise its echo. */
export const textFingerprint = (text: string) => (text.length <= 256 ? text : `${text.length}:${text.slice(0, 120)}…${text.slice(-120)}`);

export function isDuplicate(state: ConversationState, key: string, now: string): boolean {
  const entry = findKey(state.dedupe, key);
  if (!entry) return false;
  return entry.until === null || Date.parse(entry.until) > Date.parse(now);
}

const withoutKey = <V>(record: Record<string, V>, key: string): Record<string, V> => {
  const { [key]: _gone, ...rest } = record;
  return rest;
};

export function evolveConversation(state: ConversationState, event: ConversationStreamEvent): ConversationState {
  if (event.type === 'WebhookDeliveryLogged') return state;
  const handoff = evolveHandoff(state.handoff, event);
  const next = evolveFacts(state, event);
  return handoff === next.handoff ? next : { ...next, handoff };
}

/** Everything but the handoff track (evolveHandoff folds that). */
function evolveFacts(state: ConversationState, event: ConversationEvent): ConversationState {
  switch (event.type) {
    case 'ConversationStarted':
      return {
        ...state,
        exists: true,
        conversationId: event.data.conversationId,
        companyId: event.data.companyId,
        integrationId: event.data.integrationId,
        connectorType: event.data.connectorType,
        customer: event.data.customer,
        stageId: event.data.stageId,
      };
    case 'MessageReceived':
      return {
        ...state,
        dedupe: rememberKey(state.dedupe, event.data.dedupeKey, event.data.dedupeUntil),
        unanswered: keepLast(state.unanswered, event.data.messageId, UNANSWERED_KEPT),
        lastCustomerMessageAt: event.data.at,
        messageCount: state.messageCount + 1,
        sessionCustomerReplied: state.sessionCustomerReplied || state.sessionAnswered,
      };
    case 'OperatorMessageRecorded':
      return { ...state, dedupe: rememberKey(state.dedupe, event.data.dedupeKey, event.data.dedupeUntil), messageCount: state.messageCount + 1, sessionAnswered: true, peopleSince: event.data.at };
    case 'AiSessionOpened':
      return { ...state, session: { id: event.data.sessionId, state: 'active', pausedReason: null }, sessionAnswered: false, sessionCustomerReplied: false };
    case 'AiSessionPaused':
      return state.session ? { ...state, session: { ...state.session, state: 'paused', pausedReason: event.data.reason }, peopleSince: event.data.at } : state;
    case 'AiSessionResumed':
      return state.session ? { ...state, session: { ...state.session, state: 'active', pausedReason: null } } : state;
    case 'AiSessionClosed':
      return state.session ? { ...state, session: { ...state.session, state: 'closed', pausedReason: null }, unanswered: [] } : state;
    case 'ConversationReopened':
      return { ...state, session: { id: event.data.sessionId, state: 'active', pausedReason: null }, sessionAnswered: false, sessionCustomerReplied: false };
    case 'DialogTransferred':
      return state;
    case 'StageChanged':
      return { ...state, stageId: event.data.stageId };
    case 'AgentReplied':
      return {
        ...state,
        unanswered: state.unanswered.filter((id) => !event.data.inReplyTo.includes(id)),
        outbound: { ...state.outbound, [event.data.messageId]: { attempts: 0 } },
        replies: keepLast(state.replies, event.data.messageId, REPLIES_KEPT),
        recentSentTexts: keepLast(state.recentSentTexts, textFingerprint(event.data.text), RECENT_KEPT),
        messageCount: state.messageCount + 1,
        lastAgentId: event.data.agentId ?? state.lastAgentId,
        sessionAnswered: true,
      };
    case 'OperatorMessageSent':
      return {
        ...state,
        outbound: { ...state.outbound, [event.data.messageId]: { attempts: 0 } },
        recentSentTexts: keepLast(state.recentSentTexts, textFingerprint(event.data.text), RECENT_KEPT),
        messageCount: state.messageCount + 1,
        sessionAnswered: true,
        peopleSince: event.data.at,
      };
    case 'MessageDelivered':
      return {
        ...state,
        outbound: withoutKey(state.outbound, event.data.messageId),
        settled: keepLast(state.settled, { messageId: event.data.messageId, outcome: 'sent' as const }, RECENT_KEPT),
        sentPlatformIds: event.data.platformMessageId === null ? state.sentPlatformIds : keepLast(state.sentPlatformIds, event.data.platformMessageId, RECENT_KEPT),
      };
    case 'MessageDeliveryFailed':
      return {
        ...state,
        outbound: withoutKey(state.outbound, event.data.messageId),
        settled: keepLast(state.settled, { messageId: event.data.messageId, outcome: 'failed' as const }, RECENT_KEPT),
      };
    case 'MessageSendAttempted': {
      const pending = state.outbound[event.data.messageId];
      return pending ? { ...state, outbound: { ...state.outbound, [event.data.messageId]: { attempts: event.data.attempt } } } : state;
    }
    case 'MessagesUnanswered':
      return { ...state, unanswered: state.unanswered.filter((id) => !event.data.messageIds.includes(id)) };
    case 'HumanRequested':
      return state;
    case 'ConversationAssigned':
      return { ...state, assigneeId: event.data.assigneeId };
    case 'ConversationUnassigned':
      return { ...state, assigneeId: null };
    case 'CsatRequested': {
      const d = event.data;
      const survey = { surveyId: d.surveyId, sessionId: d.sessionId, via: d.via, agentId: d.agentId, teammateId: d.teammateId, answered: false };
      // Delivered like a reply (pending until sent); the platform question's echo is recognised.
      return {
        ...state,
        survey,
        outbound: d.messageId ? { ...state.outbound, [d.messageId]: { attempts: 0 } } : state.outbound,
        recentSentTexts: d.text !== undefined ? keepLast(state.recentSentTexts, textFingerprint(d.text), RECENT_KEPT) : state.recentSentTexts,
      };
    }
    case 'CsatSubmitted': {
      const answered = state.survey?.surveyId === event.data.surveyId ? { ...state.survey, answered: true } : state.survey;
      const dedupe = event.data.dedupeKey ? rememberKey(state.dedupe, event.data.dedupeKey, event.data.dedupeUntil ?? null) : state.dedupe;
      return { ...state, survey: answered, dedupe };
    }
    case 'HandoffSummarized':
      return { ...state, summarizedHandoff: event.data.since };
    case 'ExperimentArmAssigned': {
      const { experimentId, arm, version } = event.data;
      return { ...state, experiment: { experimentId, arm, version } };
    }
    case 'CustomerIdentityVerified':
      return { ...state, verifiedVisitor: { userId: event.data.userId, email: event.data.email } };
    default:
      return evolveActionCall(state, event);
  }
}

const STARTED_CALLS_KEPT = 20;
const DECIDED_CALLS_KEPT = 20;
const DECISIONS = {
  ActionCallConfirmed: 'confirmed',
  ActionCallDeclined: 'declined',
  ActionCallApproved: 'approved',
  ActionCallRefused: 'refused',
  ActionApprovalExpired: 'expired',
} as const satisfies Partial<Record<ActionCallEventType, DecidedCall['decision']>>;
type ActionCallEvent = Extract<ConversationEvent, { type: ActionCallEventType }>;

function evolveActionCall(state: ConversationState, event: ActionCallEvent): ConversationState {
  const endsPending = state.pendingAction?.callId === event.data.callId ? { pendingAction: null } : {};
  switch (event.type) {
    case 'ActionCallRequested':
      return { ...state, lastRequestedCall: { callId: event.data.callId, actionId: event.data.actionId, replyId: event.data.replyId } };
    case 'ActionCallRejected':
      return state;
    case 'ActionConfirmationAsked':
    case 'ActionApprovalRequested': {
      const requested = state.lastRequestedCall;
      if (requested?.callId !== event.data.callId) return state;
      const mode = event.type === 'ActionConfirmationAsked' ? 'confirm' : 'approve';
      const approverRoles = event.type === 'ActionApprovalRequested' ? event.data.approverRoles : null;
      return { ...state, pendingAction: { callId: requested.callId, actionId: requested.actionId, replyId: requested.replyId, mode, expiresAt: event.data.expiresAt, askedIn: event.data.messageId, approverRoles } };
    }
    case 'ActionCallConfirmed':
    case 'ActionCallDeclined':
    case 'ActionCallApproved':
    case 'ActionCallRefused':
    case 'ActionApprovalExpired':
      return { ...state, ...endsPending, decidedCalls: keepLast(state.decidedCalls, { callId: event.data.callId, decision: DECISIONS[event.type] }, DECIDED_CALLS_KEPT) };
    case 'ActionCallStarted':
      return { ...state, ...endsPending, startedCalls: keepLast(state.startedCalls, event.data.callId, STARTED_CALLS_KEPT) };
    case 'ActionCallSucceeded':
    case 'ActionCallFailed':
      return { ...state, ...endsPending, startedCalls: state.startedCalls.filter((id) => id !== event.data.callId) };
  }
}

