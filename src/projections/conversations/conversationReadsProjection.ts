import { readMarkerEvents } from '../../domain/conversations/readMarker/events.js';
import type { Doc } from '../../ports/readStore.js';
import { defineProjection } from '../projection.js';
import type { ConversationDoc } from './conversationsProjection.js';

/** How far one teammate has read one conversation. */
export interface ConversationReadDoc extends Doc {
  conversationId: string;
  companyId: string;
  userId: string;
  customerMessages: number;
  readAt: string;
}

export const CONVERSATION_READS = 'conversation_reads';
export const conversationReadId = (conversationId: string, userId: string) => `${conversationId}:${userId}`;

/** Customer messages the teammate has not seen (all of them when they never opened the conversation). */
export const unreadFor = (conversation: Pick<ConversationDoc, 'customerMessageCount'>, read: Pick<ConversationReadDoc, 'customerMessages'> | null) =>
  Math.max(0, (conversation.customerMessageCount ?? 0) - (read?.customerMessages ?? 0));

/** Per-teammate read markers, for unread counts. */
export const conversationReadsProjection = defineProjection(readMarkerEvents, {
  name: 'conversationReads',
  collections: [{ name: CONVERSATION_READS, indexes: ['conversationId', 'userId'] }],
  eventTypes: ['ConversationRead'],
  async apply(event, ctx) {
    const id = conversationReadId(event.data.conversationId, event.data.userId);
    const current = await ctx.get<ConversationReadDoc>(CONVERSATION_READS, id);
    if (current && current.customerMessages >= event.data.customerMessages) return;
    ctx.put(CONVERSATION_READS, {
      id,
      conversationId: event.data.conversationId,
      companyId: event.data.companyId,
      userId: event.data.userId,
      customerMessages: event.data.customerMessages,
      readAt: event.data.at,
    } satisfies ConversationReadDoc);
  },
});
