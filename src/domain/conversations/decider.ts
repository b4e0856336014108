import type { Decider } from '../decider.js';
import { DomainError } from '../errors.js';
import type { PlatformId } from '../platformId.js';
import type { ConversationEvent, Customer, DeliveredTo, PausedReason, PlatformRefs } from './events.js';

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
  /**
   * The newest dedupe keys of accepted deliveries and until when each counts (null: forever). A bounded
   * window: an older redelivery is caught by the store's unique index on its deterministic event ids.
   */
  dedupe: { key: string; until: string | null }[];
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
  dedupe: [],
  unanswered: [],
  lastCustomerMessageAt: null,
  outbound: {},
  settled: [],
  replies: [],
  sentPlatformIds: [],
  recentSentTexts: [],
  messageCount: 0,
};

interface Start {
  conversationId: string;
  companyId: string;
  integrationId: number;
  connectorType: 'msgplatform' | 'webchat';
  customer: Customer;
  defaultStageId: string | null;
}

interface Delivery {
  messageId: string;
  dedupeKey: string;
  dedupeUntil: string | null;
  text: string;
  attachments?: unknown[];
  platform: PlatformRefs;
}

export type ConversationCommand =
  | ({ type: 'ReceiveCustomerMessage'; start: Start; sessionId: string; client?: Record<string, unknown>; clientMessageId?: string; now: string } & Delivery)
  | ({ type: 'RecordOperatorMessage'; start: Start; now: string } & Delivery)
  | { type: 'PauseSession'; reason: PausedReason; by: string | null; now: string }
  | { type: 'ResumeSession'; by: string | null; now: string }
  | { type: 'CloseSession'; reason: 'close_dialog' | 'close_request' | 'api'; by: string | null; now: string }
  | { type: 'ReopenConversation'; sessionId: string; by: string | null; now: string }
  | { type: 'TransferDialog'; dialogId: PlatformId | null; requestId: PlatformId | null; now: string }
  | { type: 'ChangeStage'; stageId: string; validStageIds: string[]; by: string | null; now: string }
  | {
      type: 'AppendAgentReply';
      messageId: string;
      sessionId: string;
      agentId: string | null;
      text: string;
      inReplyTo: string[];
      model: string;
      inputTokens: number;
      outputTokens: number;
      handoff: boolean;
      now: string;
    }
  | { type: 'SendOperatorMessage'; messageId: string; text: string; by: string; now: string }
  | { type: 'RecordSendAttempt'; messageId: string; idempotencyKey: string; now: string }
  | { type: 'RecordDelivery'; messageId: string; platformMessageId: PlatformId | null; deliveredTo?: DeliveredTo; now: string }
  | { type: 'RecordDeliveryFailure'; messageId: string; reason: string; attempts: number; now: string }
  | { type: 'MarkUnanswered'; messageIds: string[]; reason: string; handoff: boolean; now: string };

/** Every per-conversation list is bounded: the state's size, and the cost of folding one event, never grow with the conversation. */
const DEDUPE_KEYS_KEPT = 200;
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
  const entry = state.dedupe.find((d) => d.key === key);
  if (!entry) return false;
  return entry.until === null || Date.parse(entry.until) > Date.parse(now);
}

const withoutKey = <V>(record: Record<string, V>, key: string): Record<string, V> => {
  const { [key]: _gone, ...rest } = record;
  return rest;
};

function evolve(state: ConversationState, event: ConversationEvent): ConversationState {
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
        dedupe: keepLast(state.dedupe, { key: event.data.dedupeKey, until: event.data.dedupeUntil }, DEDUPE_KEYS_KEPT),
        unanswered: keepLast(state.unanswered, event.data.messageId, UNANSWERED_KEPT),
        lastCustomerMessageAt: event.data.at,
        messageCount: state.messageCount + 1,
      };
    case 'OperatorMessageRecorded':
      return { ...state, dedupe: keepLast(state.dedupe, { key: event.data.dedupeKey, until: event.data.dedupeUntil }, DEDUPE_KEYS_KEPT), messageCount: state.messageCount + 1 };
    case 'AiSessionOpened':
      return { ...state, session: { id: event.data.sessionId, state: 'active', pausedReason: null } };
    case 'AiSessionPaused':
      return state.session ? { ...state, session: { ...state.session, state: 'paused', pausedReason: event.data.reason } } : state;
    case 'AiSessionResumed':
      return state.session ? { ...state, session: { ...state.session, state: 'active', pausedReason: null } } : state;
    case 'AiSessionClosed':
      return state.session ? { ...state, session: { ...state.session, state: 'closed', pausedReason: null }, unanswered: [] } : state;
    case 'ConversationReopened':
      return { ...state, session: { id: event.data.sessionId, state: 'active', pausedReason: null } };
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
      };
    case 'OperatorMessageSent':
      return {
        ...state,
        outbound: { ...state.outbound, [event.data.messageId]: { attempts: 0 } },
        recentSentTexts: keepLast(state.recentSentTexts, textFingerprint(event.data.text), RECENT_KEPT),
        messageCount: state.messageCount + 1,
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
  }
}

const startEvents = (state: ConversationState, start: Start, now: string): ConversationEvent[] =>
  state.exists
    ? []
    : [
        {
          type: 'ConversationStarted',
          data: {
            conversationId: start.conversationId,
            companyId: start.companyId,
            integrationId: start.integrationId,
            connectorType: start.connectorType,
            customer: start.customer,
            stageId: start.defaultStageId,
            at: now,
          },
        },
      ];

const invalidState = (message: string) => new DomainError('INVALID_STATE', message);

/** The AI session lifecycle and the conversation's messages, as a pure decision. README has the state table. */
function decide(command: ConversationCommand, state: ConversationState): ConversationEvent[] {
  const session = state.session;
  switch (command.type) {
    case 'ReceiveCustomerMessage': {
      if (isDuplicate(state, command.dedupeKey, command.now)) return [];
      const events = startEvents(state, command.start, command.now);
      // A first message, or the first after a close, opens a new active AI session.
      if (!session || session.state === 'closed') events.push({ type: 'AiSessionOpened', data: { sessionId: command.sessionId, at: command.now } });
      events.push({
        type: 'MessageReceived',
        data: {
          messageId: command.messageId,
          dedupeKey: command.dedupeKey,
          dedupeUntil: command.dedupeUntil,
          text: command.text,
          ...(command.attachments?.length ? { attachments: command.attachments as never } : {}),
          ...(command.client ? { client: command.client as never } : {}),
          ...(command.clientMessageId ? { clientMessageId: command.clientMessageId } : {}),
          platform: command.platform,
          at: command.now,
        },
      });
      return events;
    }
    case 'RecordOperatorMessage': {
      if (isDuplicate(state, command.dedupeKey, command.now)) return [];
      // The platform reports our own sends as "outbox" too: those are not a human taking over.
      const echo =
        (command.platform.messageId !== undefined && state.sentPlatformIds.some((id) => String(id) === String(command.platform.messageId))) ||
        (command.text !== '' && state.recentSentTexts.includes(textFingerprint(command.text)));
      if (echo) return [];
      const events = startEvents(state, command.start, command.now);
      events.push({
        type: 'OperatorMessageRecorded',
        data: {
          messageId: command.messageId,
          dedupeKey: command.dedupeKey,
          dedupeUntil: command.dedupeUntil,
          text: command.text,
          ...(command.attachments?.length ? { attachments: command.attachments as never } : {}),
          platform: command.platform,
          at: command.now,
        },
      });
      if (session?.state === 'active') {
        events.push({ type: 'AiSessionPaused', data: { sessionId: session.id, reason: 'operator_message', by: null, at: command.now } });
      }
      return events;
    }
    case 'PauseSession':
      if (!session || session.state === 'closed') throw invalidState('There is no open AI session to pause');
      if (session.state === 'paused') return [];
      return [{ type: 'AiSessionPaused', data: { sessionId: session.id, reason: command.reason, by: command.by, at: command.now } }];
    case 'ResumeSession':
      if (!session || session.state === 'closed') throw invalidState('A closed AI session cannot be resumed; the next customer message opens a new one');
      if (session.state === 'active') return [];
      return [{ type: 'AiSessionResumed', data: { sessionId: session.id, by: command.by, at: command.now } }];
    case 'CloseSession':
      if (!session) throw invalidState('There is no AI session to close');
      if (session.state === 'closed') return [];
      return [{ type: 'AiSessionClosed', data: { sessionId: session.id, reason: command.reason, action: 'session_close', by: command.by, at: command.now } }];
    case 'ReopenConversation':
      if (!state.exists) throw new DomainError('NOT_FOUND', 'Conversation not found');
      if (!session) throw invalidState('There is no closed AI session to reopen');
      // Reopening an open session is a no-op, so a double click or a retried request records nothing.
      if (session.state !== 'closed') return [];
      return [{ type: 'ConversationReopened', data: { sessionId: command.sessionId, previousSessionId: session.id, by: command.by, at: command.now } }];
    case 'TransferDialog': {
      if (!state.exists) throw new DomainError('NOT_FOUND', 'Conversation not found');
      const events: ConversationEvent[] = [
        { type: 'DialogTransferred', data: { action: 'session_transfer_external', dialogId: command.dialogId, requestId: command.requestId, at: command.now } },
      ];
      // A transfer hands the dialog to people: an active AI steps back; a paused one stays paused.
      if (session?.state === 'active') {
        events.push({ type: 'AiSessionPaused', data: { sessionId: session.id, reason: 'dialog_transferred', by: null, at: command.now } });
      }
      return events;
    }
    case 'ChangeStage':
      if (!state.exists) throw new DomainError('NOT_FOUND', 'Conversation not found');
      if (!command.validStageIds.includes(command.stageId)) throw new DomainError('VALIDATION_ERROR', "stageId is not a stage of this company's pipeline");
      if (state.stageId === command.stageId) return [];
      return [{ type: 'StageChanged', data: { stageId: command.stageId, by: command.by, at: command.now } }];
    case 'AppendAgentReply': {
      if (state.replies.includes(command.messageId)) return [];
      // Generated against a session that a human paused or closed meanwhile: dropped, never sent.
      if (!session || session.id !== command.sessionId || session.state !== 'active') {
        throw new DomainError('REPLY_DROPPED', `The AI session is ${session?.state ?? 'missing'}; the reply is dropped`);
      }
      const inReplyTo = command.inReplyTo.filter((id) => state.unanswered.includes(id));
      if (inReplyTo.length === 0) throw new DomainError('REPLY_DROPPED', 'The messages were already answered');
      return [
        {
          type: 'AgentReplied',
          data: {
            messageId: command.messageId,
            sessionId: command.sessionId,
            agentId: command.agentId,
            text: command.text,
            inReplyTo,
            model: command.model,
            inputTokens: command.inputTokens,
            outputTokens: command.outputTokens,
            handoff: command.handoff,
            at: command.now,
          },
        },
        ...(command.handoff ? [{ type: 'AiSessionPaused' as const, data: { sessionId: session.id, reason: 'handoff' as const, by: null, at: command.now } }] : []),
      ];
    }
    case 'SendOperatorMessage': {
      if (!state.exists) throw new DomainError('NOT_FOUND', 'Conversation not found');
      if (command.messageId in state.outbound || state.settled.some((m) => m.messageId === command.messageId)) return [];
      const events: ConversationEvent[] = [{ type: 'OperatorMessageSent', data: { messageId: command.messageId, text: command.text, by: command.by, at: command.now } }];
      // An operator writing to the customer takes over: the AI must not answer over them.
      if (session?.state === 'active') events.push({ type: 'AiSessionPaused', data: { sessionId: session.id, reason: 'operator_message', by: command.by, at: command.now } });
      return events;
    }
    case 'RecordSendAttempt': {
      const pending = state.outbound[command.messageId];
      if (!pending) return [];
      return [{ type: 'MessageSendAttempted', data: { messageId: command.messageId, attempt: pending.attempts + 1, idempotencyKey: command.idempotencyKey, at: command.now } }];
    }
    case 'RecordDelivery':
      if (state.settled.some((m) => m.messageId === command.messageId && m.outcome === 'sent')) return [];
      if (!(command.messageId in state.outbound)) {
        if (state.settled.some((m) => m.messageId === command.messageId)) return [];
        throw new DomainError('NOT_FOUND', 'Message not found');
      }
      return [
        {
          type: 'MessageDelivered',
          data: {
            messageId: command.messageId,
            platformMessageId: command.platformMessageId,
            ...(command.deliveredTo ? { deliveredTo: command.deliveredTo } : {}),
            at: command.now,
          },
        },
      ];
    case 'RecordDeliveryFailure':
      if (!(command.messageId in state.outbound)) return [];
      return [{ type: 'MessageDeliveryFailed', data: { messageId: command.messageId, reason: command.reason, attempts: command.attempts, at: command.now } }];
    case 'MarkUnanswered': {
      const ids = command.messageIds.filter((id) => state.unanswered.includes(id));
      if (ids.length === 0) return [];
      const events: ConversationEvent[] = [{ type: 'MessagesUnanswered', data: { messageIds: ids, reason: command.reason, at: command.now } }];
      if (command.handoff && session?.state === 'active') {
        events.push({ type: 'AiSessionPaused', data: { sessionId: session.id, reason: 'handoff', by: null, at: command.now } });
      }
      return events;
    }
  }
}

export const conversationDecider: Decider<ConversationCommand, ConversationEvent, ConversationState> = {
  initialState: initialConversationState,
  evolve,
  decide,
};

const CONVERSATION_PREFIX = 'conversation-';
export const conversationStream = (conversationId: string) => `${CONVERSATION_PREFIX}${conversationId}`;
export const conversationIdOfStream = (stream: string) => stream.slice(CONVERSATION_PREFIX.length);
