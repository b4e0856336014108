import { conversationIdOfStream } from '../../domain/conversations/decider.js';
import { conversationEvents, type Customer, type DeliveredTo, type PausedReason } from '../../domain/conversations/events.js';
import { customerDisplayName, givenName } from '../../domain/conversations/customerName.js';
import type { Doc } from '../../ports/readStore.js';
import { defineProjection } from '../projection.js';

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
  context: { transfers: { dialogId: string | number | null; requestId: string | number | null; at: string }[]; notes: string[] };
}

export type MessageDoc = {
  id: string;
  conversationId: string;
  companyId: string;
  seq: number;
  author: 'customer' | 'agent' | 'operator' | 'system';
  text: string;
  createdAt: string;
  delivery: 'received' | 'pending' | 'sent' | 'failed';
  deliveryError: string | null;
  /** Where a delivered message went ('sandbox': kept in the service, sent nowhere); null until delivered or when not recorded. */
  deliveredTo?: DeliveredTo | null;
  clientMessageId: string | null;
  attachments: unknown[];
};

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

/** Conversation list and detail, with their messages (customer, agent, operator, and system notes). */
export const conversationsProjection = defineProjection(conversationEvents, {
  name: 'conversations',
  collections: [
    {
      name: CONVERSATIONS,
      indexes: [
        ['companyId', 'lastMessageAt'],
        'sessionState',
        'integrationId',
        'stageId',
        'lastMessageAt',
        'companyId',
        'awaitingReplyTo',
      ],
    },
    { name: MESSAGES, indexes: [['conversationId', 'seq'], 'conversationId', 'seq', 'delivery'] },
  ],
  eventTypes: [
    'ConversationStarted',
    'MessageReceived',
    'OperatorMessageRecorded',
    'AiSessionOpened',
    'AiSessionPaused',
    'AiSessionResumed',
    'AiSessionClosed',
    'ConversationReopened',
    'DialogTransferred',
    'StageChanged',
    'AgentReplied',
    'OperatorMessageSent',
    'MessageDelivered',
    'MessageDeliveryFailed',
    'MessagesUnanswered',
  ],
  async apply(event, ctx) {
    const id = conversationIdOfStream(event.stream);
    if (event.type === 'ConversationStarted') {
      ctx.put(CONVERSATIONS, {
        id,
        companyId: event.data.companyId,
        integrationId: event.data.integrationId,
        connectorType: event.data.connectorType,
        customer: event.data.customer,
        customerName: customerDisplayName(event.data.connectorType, event.data.customer),
        session: null,
        sessionState: 'none',
        stageId: event.data.stageId,
        lastMessageAt: event.data.at,
        messageCount: 0,
        createdAt: event.data.at,
        unansweredReason: null,
        awaitingReplyTo: null,
        context: { transfers: [], notes: [] },
      } satisfies ConversationDoc);
      return;
    }
    const doc = await ctx.get<ConversationDoc>(CONVERSATIONS, id);
    if (!doc) return;
    const next: ConversationDoc = { ...doc };
    const addMessage = (m: Omit<MessageDoc, 'conversationId' | 'companyId' | 'seq'>) => {
      next.messageCount += 1;
      next.lastMessageAt = m.createdAt;
      ctx.put(MESSAGES, { ...m, conversationId: id, companyId: doc.companyId, seq: Number(event.position) } satisfies MessageDoc);
    };
    const setDelivery = async (messageId: string, delivery: MessageDoc['delivery'], error: string | null, deliveredTo: DeliveredTo | null = null) => {
      const m = await ctx.get<MessageDoc>(MESSAGES, messageId);
      if (m) ctx.put(MESSAGES, { ...m, delivery, deliveryError: error, ...(deliveredTo ? { deliveredTo } : {}) });
    };
    switch (event.type) {
      case 'MessageReceived': {
        // The client's name as the platform (or the web chat page) sends it with a message: the latest one names them.
        const given = givenName(event.data.client?.name);
        if (given) next.customerName = customerDisplayName(next.connectorType, next.customer, given);
        next.awaitingReplyTo = event.data.messageId;
        addMessage({
          id: event.data.messageId,
          author: 'customer',
          text: event.data.text,
          createdAt: event.data.at,
          delivery: 'received',
          deliveryError: null,
          clientMessageId: event.data.clientMessageId ?? null,
          attachments: event.data.attachments ?? [],
        });
        break;
      }
      case 'OperatorMessageRecorded':
        addMessage({ id: event.data.messageId, author: 'operator', text: event.data.text, createdAt: event.data.at, delivery: 'sent', deliveryError: null, clientMessageId: null, attachments: event.data.attachments ?? [] });
        break;
      case 'AgentReplied':
        next.unansweredReason = null;
        next.awaitingReplyTo = null;
        addMessage({ id: event.data.messageId, author: 'agent', text: event.data.text, createdAt: event.data.at, delivery: 'pending', deliveryError: null, clientMessageId: null, attachments: [] });
        break;
      case 'OperatorMessageSent':
        addMessage({ id: event.data.messageId, author: 'operator', text: event.data.text, createdAt: event.data.at, delivery: 'pending', deliveryError: null, clientMessageId: null, attachments: [] });
        break;
      case 'MessageDelivered':
        await setDelivery(event.data.messageId, 'sent', null, event.data.deliveredTo ?? null);
        break;
      case 'MessageDeliveryFailed':
        await setDelivery(event.data.messageId, 'failed', event.data.reason);
        break;
      case 'MessagesUnanswered':
        next.unansweredReason = event.data.reason;
        next.awaitingReplyTo = null;
        ctx.put(MESSAGES, systemNote(id, doc.companyId, event.id, Number(event.position), `Not answered by the AI agent: ${event.data.reason}`, event.data.at));
        break;
      case 'AiSessionOpened':
        next.session = { id: event.data.sessionId, state: 'active' };
        next.sessionState = 'active';
        break;
      case 'AiSessionPaused':
        next.session = { id: event.data.sessionId, state: 'paused', pausedReason: event.data.reason };
        next.sessionState = 'paused';
        break;
      case 'AiSessionResumed':
        next.session = { id: event.data.sessionId, state: 'active' };
        next.sessionState = 'active';
        break;
      case 'AiSessionClosed':
        next.session = { id: event.data.sessionId, state: 'closed' };
        next.awaitingReplyTo = null;
        next.sessionState = 'closed';
        break;
      case 'ConversationReopened':
        next.session = { id: event.data.sessionId, state: 'active' };
        next.sessionState = 'active';
        break;
      case 'DialogTransferred':
        next.context = { ...doc.context, transfers: [...doc.context.transfers, { dialogId: event.data.dialogId, requestId: event.data.requestId, at: event.data.at }] };
        break;
      case 'StageChanged':
        next.stageId = event.data.stageId;
        break;
    }
    ctx.put(CONVERSATIONS, next);
  },
});
