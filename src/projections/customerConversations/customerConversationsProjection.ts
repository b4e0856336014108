import { conversationIdOfStream } from '../../domain/conversations/decider.js';
import { conversationEvents } from '../../domain/conversations/events.js';
import { customerIdFor } from '../../domain/customers/decider.js';
import type { Doc } from '../../ports/readStore.js';
import { defineProjection } from '../projection.js';

/** A customer's conversations, newest activity first: the list next to the customer's profile. */
export interface CustomerConversationDoc extends Doc {
  customerId: string;
  companyId: string;
  integrationId: number;
  connectorType: 'msgplatform' | 'webchat';
  transport: string;
  sessionState: 'active' | 'paused' | 'closed' | 'none';
  messageCount: number;
  lastMessageAt: string;
  createdAt: string;
}

export const CUSTOMER_CONVERSATIONS = 'customer_conversations';

const messageTypes = ['MessageReceived', 'OperatorMessageRecorded', 'OperatorMessageSent', 'AgentReplied'] as const;

export const customerConversationsProjection = defineProjection(conversationEvents, {
  name: 'customerConversations',
  collections: [{ name: CUSTOMER_CONVERSATIONS, indexes: [['customerId', 'lastMessageAt'], 'companyId'] }],
  eventTypes: [
    'ConversationStarted',
    ...messageTypes,
    'AiSessionOpened',
    'AiSessionPaused',
    'AiSessionResumed',
    'AiSessionClosed',
    'ConversationReopened',
  ],
  async apply(event, ctx) {
    const id = conversationIdOfStream(event.stream);
    if (event.type === 'ConversationStarted') {
      const d = event.data;
      ctx.put(CUSTOMER_CONVERSATIONS, {
        id,
        customerId: customerIdFor(d.integrationId, d.customer.clientId),
        companyId: d.companyId,
        integrationId: d.integrationId,
        connectorType: d.connectorType,
        transport: d.customer.transport,
        sessionState: 'none',
        messageCount: 0,
        lastMessageAt: d.at,
        createdAt: d.at,
      } satisfies CustomerConversationDoc);
      return;
    }
    const doc = await ctx.get<CustomerConversationDoc>(CUSTOMER_CONVERSATIONS, id);
    if (!doc) return;
    switch (event.type) {
      case 'MessageReceived':
      case 'OperatorMessageRecorded':
      case 'OperatorMessageSent':
      case 'AgentReplied':
        ctx.put(CUSTOMER_CONVERSATIONS, { ...doc, messageCount: doc.messageCount + 1, lastMessageAt: event.data.at > doc.lastMessageAt ? event.data.at : doc.lastMessageAt });
        return;
      case 'AiSessionOpened':
      case 'AiSessionResumed':
      case 'ConversationReopened':
        ctx.put(CUSTOMER_CONVERSATIONS, { ...doc, sessionState: 'active' });
        return;
      case 'AiSessionPaused':
        ctx.put(CUSTOMER_CONVERSATIONS, { ...doc, sessionState: 'paused' });
        return;
      case 'AiSessionClosed':
        ctx.put(CUSTOMER_CONVERSATIONS, { ...doc, sessionState: 'closed' });
    }
  },
});
