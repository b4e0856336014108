import { conversationIdOfStream } from '../../domain/conversations/decider.js';
import { conversationEvents } from '../../domain/conversations/events.js';
import type { Doc } from '../../ports/readStore.js';
import { defineProjection } from '../projection.js';

/**
 * The action calls waiting for a customer's yes or a teammate's approval, with their deadline: what the expiry
 * timer reads (earliest deadline first), so it never scans conversations or streams. One per conversation (its
 * id), as the conversation has one pending call at most: a newer wait replaces an older one, and a call leaves as
 * soon as anything ends its wait, so the collection holds only what is waiting now.
 */
export interface PendingActionCallDoc extends Doc {
  callId: string;
  conversationId: string;
  companyId: string;
  mode: 'confirm' | 'approve';
  expiresAt: string;
}

export const PENDING_ACTION_CALLS = 'pending_action_calls';

export const pendingActionCallsProjection = defineProjection(conversationEvents, {
  name: 'pendingActionCalls',
  collections: [{ name: PENDING_ACTION_CALLS, indexes: ['expiresAt'] }],
  eventTypes: [
    'ActionConfirmationAsked',
    'ActionApprovalRequested',
    'ActionCallConfirmed',
    'ActionCallDeclined',
    'ActionCallApproved',
    'ActionCallRefused',
    'ActionApprovalExpired',
    'ActionCallRejected',
    'ActionCallStarted',
    'ActionCallSucceeded',
    'ActionCallFailed',
  ],
  async apply(event, ctx) {
    const callId = event.data.callId;
    const conversationId = conversationIdOfStream(event.stream);
    if (event.type === 'ActionConfirmationAsked' || event.type === 'ActionApprovalRequested') {
      ctx.put(PENDING_ACTION_CALLS, {
        id: conversationId,
        callId,
        conversationId,
        companyId: event.metadata.companyId ?? '',
        mode: event.type === 'ActionConfirmationAsked' ? 'confirm' : 'approve',
        expiresAt: event.data.expiresAt,
      } satisfies PendingActionCallDoc);
      return;
    }
    const waiting = await ctx.get<PendingActionCallDoc>(PENDING_ACTION_CALLS, conversationId);
    if (waiting?.callId === callId) ctx.delete(PENDING_ACTION_CALLS, conversationId);
  },
});
