import { conversationIdOfStream } from '../../domain/conversations/decider.js';
import { conversationEvents } from '../../domain/conversations/events.js';
import type { Doc } from '../../ports/readStore.js';
import { defineProjection } from '../projection.js';

/**
 * One searchable entry: a message (customer, AI or human reply) or a conversation's customer name. Entries are
 * written once, when their event is applied, so indexing one costs the same whatever the store holds.
 */
export interface SearchEntryDoc extends Doc {
  companyId: string;
  conversationId: string;
  integrationId: number;
  kind: 'message' | 'customer';
  /** Who wrote the message (null for a customer-name entry). */
  author: 'customer' | 'agent' | 'operator' | null;
  direction: 'inbound' | 'outbound' | null;
  messageId: string | null;
  text: string;
  at: string;
  /** Position of the event that wrote the entry: unique, newest highest (the search order and cursor). */
  seq: number;
}

/** What the entries of a conversation repeat from its start (message events do not carry them). */
interface SearchConversationDoc extends Doc {
  companyId: string;
  integrationId: number;
}

export const SEARCH_ENTRIES = 'search_entries';
const SEARCH_CONVERSATIONS = 'search_conversations';

export const customerEntryId = (conversationId: string) => `customer-${conversationId}`;

/** Full-text search over messages and customer names, per company (`GET /api/search`). */
export const searchProjection = defineProjection(conversationEvents, {
  name: 'search',
  collections: [
    { name: SEARCH_ENTRIES, indexes: ['companyId', 'conversationId'], fullText: { fields: ['text'], scope: 'companyId', order: 'seq' } },
    { name: SEARCH_CONVERSATIONS, indexes: [] },
  ],
  eventTypes: ['ConversationStarted', 'MessageReceived', 'AgentReplied', 'OperatorMessageSent', 'OperatorMessageRecorded'],
  async apply(event, ctx) {
    const conversationId = conversationIdOfStream(event.stream);
    const seq = Number(event.position);
    if (event.type === 'ConversationStarted') {
      const { companyId, integrationId, customer, at } = event.data;
      ctx.put(SEARCH_CONVERSATIONS, { id: conversationId, companyId, integrationId } satisfies SearchConversationDoc);
      const name = customer.name?.trim();
      if (name) {
        ctx.put(SEARCH_ENTRIES, {
          id: customerEntryId(conversationId),
          companyId,
          conversationId,
          integrationId,
          kind: 'customer',
          author: null,
          direction: null,
          messageId: null,
          text: name,
          at,
          seq,
        } satisfies SearchEntryDoc);
      }
      return;
    }
    const conversation = await ctx.get<SearchConversationDoc>(SEARCH_CONVERSATIONS, conversationId);
    if (!conversation) return;
    const { messageId, text, at } = event.data;
    if (!text.trim()) return; // an attachment without words: nothing to find
    const author = event.type === 'MessageReceived' ? 'customer' : event.type === 'AgentReplied' ? 'agent' : 'operator';
    ctx.put(SEARCH_ENTRIES, {
      id: messageId,
      companyId: conversation.companyId,
      conversationId,
      integrationId: conversation.integrationId,
      kind: 'message',
      author,
      direction: author === 'customer' ? 'inbound' : 'outbound',
      messageId,
      text,
      at,
      seq,
    } satisfies SearchEntryDoc);
  },
});
