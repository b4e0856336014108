import type { FindQuery, Page, ReadStore } from '../../ports/readStore.js';
import { CUSTOMER_CONVERSATIONS, type CustomerConversationDoc } from './customerConversationsProjection.js';

/** The customer's conversations, newest activity first (the caller has checked the customer is its company's). */
export async function listCustomerConversations(readStore: ReadStore, customerId: string, page: Pick<FindQuery, 'limit' | 'cursor'>): Promise<Page<CustomerConversationDoc>> {
  return readStore.find<CustomerConversationDoc>(CUSTOMER_CONVERSATIONS, {
    where: { customerId },
    orderBy: [{ field: 'lastMessageAt', direction: 'desc' }],
    limit: page.limit,
    cursor: page.cursor ?? null,
  });
}
