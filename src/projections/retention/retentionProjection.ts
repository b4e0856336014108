import { conversationIdOfStream } from '../../domain/conversations/decider.js';
import { conversationEvents } from '../../domain/conversations/events.js';
import { companyIdOfRetentionStream } from '../../domain/company/retention/decider.js';
import { retentionEvents } from '../../domain/company/retention/events.js';
import { customerIdFor } from '../../domain/customers/decider.js';
import { customerEvents } from '../../domain/customers/events.js';
import type { Doc } from '../../ports/readStore.js';
import { defineProjection } from '../projection.js';

/** A company's retention period, for the sweep (`active`: it has one; the settings API reads the stream). */
export interface RetentionPolicyDoc extends Doc {
  companyId: string;
  conversationDays: number | null;
  active: boolean;
}

/**
 * A conversation of a company for the retention sweep: `closed` with the time it was closed, so the company's
 * oldest closed conversations are one indexed read. Out of that list (closed: false) while open and once erased.
 */
export interface RetainedConversationDoc extends Doc {
  companyId: string;
  /** Whose conversation: the customer the sweep erases with it (one conversation per customer). */
  customerId: string;
  closed: boolean;
  closedAt: string | null;
}

export const RETENTION_POLICIES = 'retention_policies';
export const RETAINED_CONVERSATIONS = 'retained_conversations';

const schemas = {
  ...retentionEvents,
  ConversationStarted: conversationEvents.ConversationStarted,
  AiSessionClosed: conversationEvents.AiSessionClosed,
  AiSessionOpened: conversationEvents.AiSessionOpened,
  ConversationReopened: conversationEvents.ConversationReopened,
  CustomerErased: customerEvents.CustomerErased,
};

/** What the retention sweep (workers/retention) reads: who keeps data how long, and closed conversations by close time. */
export const retentionProjection = defineProjection(schemas, {
  name: 'retention',
  collections: [
    // Companies with a period, a page at a time.
    { name: RETENTION_POLICIES, indexes: [['active']] },
    // A company's closed conversations, closed longest ago first.
    { name: RETAINED_CONVERSATIONS, indexes: [['companyId', 'closed', 'closedAt']] },
  ],
  eventTypes: ['RetentionPolicySet', 'ConversationStarted', 'AiSessionClosed', 'AiSessionOpened', 'ConversationReopened', 'CustomerErased'],
  async apply(event, ctx) {
    switch (event.type) {
      case 'RetentionPolicySet': {
        const companyId = companyIdOfRetentionStream(event.stream);
        if (companyId) ctx.put(RETENTION_POLICIES, { id: companyId, companyId, conversationDays: event.data.conversationDays, active: event.data.conversationDays !== null });
        return;
      }
      case 'ConversationStarted':
        ctx.put(RETAINED_CONVERSATIONS, {
          id: event.data.conversationId,
          companyId: event.data.companyId,
          customerId: customerIdFor(event.data.integrationId, event.data.customer.clientId),
          closed: false,
          closedAt: null,
        });
        return;
      case 'CustomerErased':
        // Erased (by hand or by the sweep): nothing left to erase until the customer writes again and the
        // conversation is closed again (the doc stays for that: it alone knows the conversation's company and customer).
        for (const id of event.data.conversationIds) {
          const doc = await ctx.get<RetainedConversationDoc>(RETAINED_CONVERSATIONS, id);
          // Its customer id from here: on a rebuild, ConversationStarted's client id reads `[erased]` by now.
          if (doc) ctx.put(RETAINED_CONVERSATIONS, { ...doc, customerId: event.data.customerId, closed: false, closedAt: null });
        }
        return;
      default: {
        const id = conversationIdOfStream(event.stream);
        const doc = id ? await ctx.get<RetainedConversationDoc>(RETAINED_CONVERSATIONS, id) : null;
        if (!doc) return;
        // Closed: its retention counts from now; a new session (the customer wrote, a teammate reopened) stops it.
        const closed = event.type === 'AiSessionClosed';
        ctx.put(RETAINED_CONVERSATIONS, { ...doc, closed, closedAt: closed ? event.data.at : null });
      }
    }
  },
});
