import type { PlatformId } from '../platformId.js';
import { customerIdFor } from '../customers/decider.js';
import { customerDisplayNameOf, givenName } from '../customers/displayName.js';
import type { ConversationEvent, ConversationStreamEvent, Customer, PausedReason } from './events.js';
import type { CsatVia } from './csat.js';
import type { ActionCallEventType } from './actionCalls.js';
import { DEFAULT_PRIORITY, evolveTriage, type Priority } from './triage.js';
import type { ExperimentAssignment } from '../agents/experiments.js';
import { z } from 'zod';
import { NO_CONFIDENT_ANSWER_REASON } from '../answers/provenance.js';

/**
 * The newest dedupe keys of a conversation's accepted deliveries, and until when each counts (null: forever).
 *
 * Folded once per message for the life of a conversation, so adding and looking up must cost the same with 10 keys
 * or 200: keys go into a small open chunk (copied on add, at most CHUNK entries); a full chunk is sealed into a
 * frozen Map, and only the newest SEALED_KEPT sealed chunks are kept. The window is immutable like the rest of the
 * state (a decider may hold an older state), and holds at least CHUNK × SEALED_KEPT of the newest keys. An older
 * redelivery is caught by the store's unique index on its deterministic event ids.
 */
export interface DedupeEntry {
  readonly key: string;
  readonly until: string | null;
}

export interface DedupeWindow {
  readonly open: readonly DedupeEntry[];
  /** Oldest first. */
  readonly sealed: readonly ReadonlyMap<string, string | null>[];
}

const CHUNK = 25;
const SEALED_KEPT = 8;
/** The window never holds more keys than this. */
export const DEDUPE_WINDOW_MAX = CHUNK * (SEALED_KEPT + 1);
/** …nor forgets any of this many newest keys. */
export const DEDUPE_WINDOW_MIN = CHUNK * SEALED_KEPT;

export const emptyDedupeWindow: DedupeWindow = { open: [], sealed: [] };

export function rememberKey(window: DedupeWindow, key: string, until: string | null): DedupeWindow {
  const open = [...window.open, { key, until }];
  if (open.length < CHUNK) return { open, sealed: window.sealed };
  const chunk: ReadonlyMap<string, string | null> = new Map(open.map((e) => [e.key, e.until]));
  const sealed = window.sealed.length < SEALED_KEPT ? [...window.sealed, chunk] : [...window.sealed.slice(1), chunk];
  return { open: [], sealed };
}

/** The newest entry for `key` in the window, or undefined when the window does not hold it. */
export function findKey(window: DedupeWindow, key: string): DedupeEntry | undefined {
  for (let i = window.open.length - 1; i >= 0; i--) if (window.open[i]!.key === key) return window.open[i];
  for (let i = window.sealed.length - 1; i >= 0; i--) {
    const until = window.sealed[i]!.get(key);
    if (until !== undefined) return { key, until };
  }
  return undefined;
}

export const dedupeWindowSize = (window: DedupeWindow) => window.open.length + window.sealed.reduce((n, chunk) => n + chunk.size, 0);

/**
 * The "Needs human" queue. A handoff is distinct from a manual pause: an operator pausing the AI takes the
 * conversation themself, while a handoff means a customer waits for someone. It is set by the events that hand
 * the conversation to people and cleared when a human replies, the conversation is resolved (closed), or the AI
 * is resumed. Both the decider's state and the conversations read model fold it with `evolveHandoff`, so the
 * queue and the decisions can never disagree.
 */
export const handoffReason = z.enum([
  /** The model answered with the agent's handoff message (its reason, when it gave one, is the detail). */
  'agent_handoff',
  /**
   * The answerer had no confident answer: the builtin provider's evidence was under the agent's setting, or a
   * grounded model handed off, cited no passage it was given, or sent a reply that could not be read.
   */
  'no_confident_answer',
  /** The AI could not answer (the language model failed) and left the messages to a human. */
  'ai_unanswered',
  /** The customer asked for a person. */
  'customer_request',
  /** The messaging platform transferred the dialog to its operators. */
  'dialog_transferred',
  /** The conversation fell in an experiment's holdout: it goes to people, as the experiment's baseline. */
  'experiment_holdout',
]);
export type HandoffReason = z.infer<typeof handoffReason>;

/** Why a conversation whose action approval timed out is handed to people (the handoff's detail). */
export const APPROVAL_EXPIRED_REASON = 'An action waited for a teammate’s approval and nobody decided in time';

export interface Handoff {
  reason: HandoffReason;
  /** More about the reason when there is some (why the AI could not answer). */
  detail: string | null;
  /** Since when the customer waits: their oldest message no one has answered, else when the handoff happened. */
  since: string;
  /** Handed off outside business hours: when people are back (the queue shows it as "after hours"). Absent in hours. */
  backAt?: string;
}

export interface HandoffTrack {
  handoff: Handoff | null;
  /** The oldest customer message not yet answered (by the AI or a human); null when nobody waits. */
  waitingSince: string | null;
  /** The reason of the newest MessagesUnanswered, for a handoff that follows it in the same decision. */
  lastUnansweredReason: string | null;
}

export const noHandoff: HandoffTrack = { handoff: null, waitingSince: null, lastUnansweredReason: null };

const handedOff = (track: HandoffTrack, reason: HandoffReason, at: string, detail: string | null = null, backAt?: string): HandoffTrack =>
  // The first reason stays: the customer has waited since then, whatever else happened meanwhile. A later reply
  // that told them when people are back (a request for a person, answered after hours) dates the wait.
  track.handoff
    ? backAt && !track.handoff.backAt
      ? { ...track, handoff: { ...track.handoff, backAt } }
      : track
    : { ...track, handoff: { reason, detail, since: track.waitingSince ?? at, ...(backAt ? { backAt } : {}) } };

export function evolveHandoff(track: HandoffTrack, event: Pick<ConversationEvent, 'type' | 'data'>): HandoffTrack {
  const e = event as ConversationEvent;
  switch (e.type) {
    case 'MessageReceived':
      return track.waitingSince ? track : { ...track, waitingSince: e.data.at };
    case 'AgentReplied':
      // A handoff reply tells the customer someone will come: they still wait, now for a human. Sent because the
      // model failed, it is the AI that could not answer, for the reason recorded just before.
      if (e.data.aiFailed) return handedOff(track, 'ai_unanswered', e.data.at, track.lastUnansweredReason, e.data.backAt);
      // An answer to a customer waiting for a person (they asked for one) keeps them in the queue.
      if (!e.data.handoff) return track.handoff ? handedOff({ ...track, waitingSince: null }, track.handoff.reason, e.data.at, null, e.data.backAt) : { ...track, waitingSince: null };
      // "no confident answer" is the reason itself, not more about it: only a model's own words are a detail.
      return handedOff(track, e.data.handoffCause ?? 'agent_handoff', e.data.at, e.data.handoffReason === NO_CONFIDENT_ANSWER_REASON ? null : (e.data.handoffReason ?? null), e.data.backAt);
    case 'MessagesUnanswered':
      return { ...track, lastUnansweredReason: e.data.reason };
    // The handoff pause that follows says why: no teammate decided on the action call in time.
    case 'ActionApprovalExpired':
      return { ...track, lastUnansweredReason: APPROVAL_EXPIRED_REASON };
    case 'AiSessionPaused':
      return e.data.reason === 'handoff' ? handedOff(track, 'ai_unanswered', e.data.at, track.lastUnansweredReason, e.data.backAt) : track;
    case 'HumanRequested':
      return handedOff(track, 'customer_request', e.data.at);
    case 'DialogTransferred':
      return handedOff(track, 'dialog_transferred', e.data.at);
    case 'OperatorMessageSent':
    case 'OperatorMessageRecorded':
    case 'AiSessionClosed':
      return noHandoff;
    case 'AiSessionResumed':
      return { ...track, handoff: null };
    default:
      return track;
  }
}

/**
 * Whether a customer message asks for a person ("can I talk to a human?", "real person please", "operator").
 * Deliberately narrow: a false positive takes the AI off the conversation, so only clear requests count.
 */
export function asksForHuman(text: string): boolean {
  const t = text.toLowerCase().replace(/\s+/g, ' ').trim();
  if (t.length > 300) return false;
  if (/^(a )?(human|person|operator|real person|live agent|human agent)( please| pls)?[.!?]*$/.test(t)) return true;
  if (/\b(real|live|actual) (person|human|agent|operator)\b/.test(t)) return true;
  if (/\b(need|want) (a |an |to talk to a |to speak to a |to speak with a )?(human|operator)\b/.test(t)) return true;
  return /\b(talk|speak|chat|connect me|put me through|transfer me)\b[^.?!]{0,25}\b(a |an |to a |to an |with a |with an |to )?(human|person|operator|representative|someone real)\b/.test(t);
}

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
  /** The newest dedupe keys of accepted deliveries (DedupeWindow above). */
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
  /** The support team it is for (ConversationRoutedToTeam); null or absent (states folded before teams): none. */
  teamId?: string | null;
  /** The "Needs human" record and what it is derived from (evolveHandoff above). */
  handoff: HandoffTrack;
  /** The agent that answered last (who a CSAT rating is for). */
  lastAgentId: string | null;
  /** The version of that agent that wrote its last answer (CSAT per version); null: unknown (replies before versions). */
  lastAgentVersion: number | null;
  /** In the current session: someone answered, and the customer wrote after an answer (CSAT's "customer replied"). */
  sessionAnswered: boolean;
  sessionCustomerReplied: boolean;
  /** The newest CSAT survey: waiting for an answer while its session stays closed and it is not answered. */
  survey: { surveyId: string; sessionId: string; via: CsatVia; agentId: string | null; agentVersion?: number; teammateId: string | null; answered: boolean; rating?: number } | null;
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
  /** The newest note ids (NoteAdded), so a retried note records nothing. Bounded. */
  recentNotes: string[];
  /** Triage (triage.ts): how urgent it is, and until when it is snoozed (null: not snoozed). */
  priority: Priority;
  snoozedUntil: string | null;
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
  lastAgentVersion: null,
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
  recentNotes: [],
  priority: DEFAULT_PRIORITY,
  snoozedUntil: null,
};

/** Every per-conversation list is bounded: the state's size, and the cost of folding one event, never grow with the conversation. */
const RECENT_KEPT = 50;
const REPLIES_KEPT = 100;
const NOTES_KEPT = 100;
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
        lastAgentVersion: event.data.agentId ? (event.data.agentVersion ?? null) : state.lastAgentVersion,
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
    case 'ConversationRoutedToTeam':
      return { ...state, teamId: event.data.teamId };
    case 'CsatRequested': {
      const d = event.data;
      const survey = { surveyId: d.surveyId, sessionId: d.sessionId, via: d.via, agentId: d.agentId, ...(d.agentVersion !== undefined ? { agentVersion: d.agentVersion } : {}), teammateId: d.teammateId, answered: false };
      // Delivered like a reply (pending until sent); the platform question's echo is recognised.
      return {
        ...state,
        survey,
        outbound: d.messageId ? { ...state.outbound, [d.messageId]: { attempts: 0 } } : state.outbound,
        recentSentTexts: d.text !== undefined ? keepLast(state.recentSentTexts, textFingerprint(d.text), RECENT_KEPT) : state.recentSentTexts,
      };
    }
    case 'CsatSubmitted': {
      const answered = state.survey?.surveyId === event.data.surveyId ? { ...state.survey, answered: true, rating: event.data.rating } : state.survey;
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
    case 'NoteAdded':
      return { ...state, recentNotes: keepLast(state.recentNotes, event.data.noteId, NOTES_KEPT) };
    case 'ConversationPrioritized':
    case 'ConversationSnoozed':
    case 'ConversationWoke':
      return evolveTriage(state, event);
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

/** A name the customer gave, tidied for display (customers/displayName.ts): re-exported for the conversation's readers. */
export { givenName };

/**
 * How the dashboard names a conversation's customer: the name they gave, else the readable name generated from
 * their customer id ("Amber Otter", customers/displayName.ts). The same rule the customer panel uses, so a
 * customer is one name on every page. `given`: a newer name than the one the conversation started with.
 */
export function customerDisplayName(integrationId: number, customer: Pick<Customer, 'clientId' | 'name'>, given: string | null = null): string {
  return customerDisplayNameOf(customerIdFor(integrationId, customer.clientId), given ?? customer.name);
}
