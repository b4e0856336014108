import type { Page, ReadStore } from '../../ports/readStore.js';
import type { SearchHit } from '../../ports/readStore.js';
import { CONVERSATIONS, type ConversationDoc } from '../conversations/conversationsProjection.js';
import { SEARCH_ENTRIES, type SearchEntryDoc } from './searchProjection.js';

/** A search hit with its conversation as the dashboard shows it now (null when the read model does not have it yet). */
export interface ConversationSearchHit extends SearchHit<SearchEntryDoc> {
  conversation: ConversationDoc | null;
}

/**
 * The company's messages and customer names holding every word of `text`, newest first, each with its
 * conversation (its current customer name), read by id: at most `limit` reads.
 */
export async function searchConversations(
  readStore: ReadStore,
  companyId: string,
  query: { text: string; limit: number; cursor?: string | undefined },
): Promise<Page<ConversationSearchHit>> {
  const page = await readStore.search<SearchEntryDoc>(SEARCH_ENTRIES, { scope: companyId, text: query.text, limit: query.limit, cursor: query.cursor });
  const conversations = new Map<string, ConversationDoc | null>();
  for (const { doc } of page.items) {
    if (!conversations.has(doc.conversationId)) conversations.set(doc.conversationId, await readStore.get<ConversationDoc>(CONVERSATIONS, doc.conversationId));
  }
  const items = page.items.flatMap((hit) => {
    const conversation = conversations.get(hit.doc.conversationId) ?? null;
    if (conversation && conversation.companyId !== companyId) return []; // never: the index is per company
    return [{ ...hit, conversation }];
  });
  return { items, nextCursor: page.nextCursor };
}
