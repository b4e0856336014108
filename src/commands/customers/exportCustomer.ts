import { conversationStream } from '../../domain/conversations/decider.js';
import { customerDecider, customerStream } from '../../domain/customers/decider.js';
import { addToConversationExport, emptyConversationExport, type ConversationExport } from '../../domain/customers/export.js';
import type { KnownCustomer } from '../../domain/customers/state.js';
import type { EventStore } from '../../ports/eventStore.js';
import { conversationIdFor } from '../conversations/conversationIds.js';
import type { CommandDeps } from '../deps.js';
import { handleCommand } from '../handleCommand.js';

/**
 * The bound on one export: at most this many events of a conversation's stream are read (in pages), so an
 * export costs at most this whatever the conversation's length; past it the export says `truncated`.
 */
export const EXPORT_LIMITS = { conversationEvents: 10_000, page: 500 } as const;

export interface CustomerExport {
  customerId: string;
  exportedAt: string;
  /** Erased (and not heard from since): the export holds no personal data, only that it was erased. */
  erased: boolean;
  profile: KnownCustomer | null;
  conversations: ConversationExport[];
  /** True when a conversation had more events than EXPORT_LIMITS.conversationEvents: the rest is not in it. */
  truncated: boolean;
}

/**
 * Everything held about the customer (GDPR art. 15; docs/erasure.md): the profile, note and tags from their
 * stream, and their conversation's messages both ways, internal notes, ratings, action calls, handoff summaries,
 * from its stream, as stored. Records `CustomerExported` (who, when; no personal data) first, so no export
 * leaves without its audit.
 */
export async function exportCustomer(deps: CommandDeps, input: { companyId: string; userId: string; customer: KnownCustomer }): Promise<CustomerExport> {
  const { customer } = input;
  const now = deps.clock.now().toISOString();
  await handleCommand(
    deps.eventStore,
    customerStream(customer.customerId),
    customerDecider,
    { type: 'RecordExport', companyId: input.companyId, by: `user:${input.userId}`, now },
    { metadata: { companyId: input.companyId, actor: `user:${input.userId}` } },
  );
  if (customer.erased) return { customerId: customer.customerId, exportedAt: now, erased: true, profile: null, conversations: [], truncated: false };
  // A customer is one (integration, client id), and so is a conversation: the customer's one conversation.
  const conversationId = conversationIdFor(customer.integrationId, customer.clientId);
  const { conversation, truncated } = await readConversationExport(deps.eventStore, conversationId);
  return { customerId: customer.customerId, exportedAt: now, erased: false, profile: customer, conversations: conversation ? [conversation] : [], truncated };
}

async function readConversationExport(eventStore: EventStore, conversationId: string): Promise<{ conversation: ConversationExport | null; truncated: boolean }> {
  const out = emptyConversationExport(conversationId);
  let read = 0;
  for (;;) {
    const maxCount = Math.min(EXPORT_LIMITS.page, EXPORT_LIMITS.conversationEvents - read);
    if (maxCount === 0) {
      const more = await eventStore.readStream(conversationStream(conversationId), { fromRevision: BigInt(read), maxCount: 1 });
      return { conversation: out, truncated: more.length > 0 };
    }
    const page = await eventStore.readStream(conversationStream(conversationId), { fromRevision: BigInt(read), maxCount });
    for (const e of page) addToConversationExport(out, { type: e.type, data: e.data } as Parameters<typeof addToConversationExport>[1]);
    read += page.length;
    if (page.length < maxCount) return { conversation: read === 0 ? null : out, truncated: false };
  }
}
