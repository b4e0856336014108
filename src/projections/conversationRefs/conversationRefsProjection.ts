import { conversationIdOfStream } from '../../domain/conversations/decider.js';
import { conversationEvents } from '../../domain/conversations/events.js';
import type { Doc } from '../../ports/readStore.js';
import { defineProjection } from '../projection.js';

/**
 * Status events name a platform request or dialog, not a customer: this index maps the ids that
 * earlier messages carried to their conversation.
 */
export const CONVERSATION_REFS = 'conversationRefs';
const OWNERS = 'conversationRefOwners';

export const refId = (integrationId: number, kind: 'request' | 'dialog', id: string | number) => `${integrationId}:${kind}:${String(id)}`;

export const conversationRefsProjection = defineProjection(conversationEvents, {
  name: 'conversationRefs',
  collections: [
    { name: CONVERSATION_REFS, indexes: [] },
    { name: OWNERS, indexes: [] },
  ],
  eventTypes: ['ConversationStarted', 'MessageReceived', 'OperatorMessageRecorded', 'DialogTransferred'],
  async apply(event, ctx) {
    const conversationId = conversationIdOfStream(event.stream);
    if (event.type === 'ConversationStarted') {
      ctx.put(OWNERS, { id: conversationId, integrationId: event.data.integrationId });
      return;
    }
    const owner = await ctx.get<Doc & { integrationId: number }>(OWNERS, conversationId);
    if (!owner) return;
    const refs =
      event.type === 'DialogTransferred'
        ? { requestId: event.data.requestId ?? undefined, dialogId: event.data.dialogId ?? undefined }
        : event.type === 'MessageReceived' || event.type === 'OperatorMessageRecorded'
          ? event.data.platform
          : {};
    if (refs.requestId !== undefined) ctx.put(CONVERSATION_REFS, { id: refId(owner.integrationId, 'request', refs.requestId), conversationId });
    if (refs.dialogId !== undefined) ctx.put(CONVERSATION_REFS, { id: refId(owner.integrationId, 'dialog', refs.dialogId), conversationId });
  },
});
