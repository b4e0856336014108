import type { ReadStore } from '../../ports/readStore.js';
import { CONVERSATIONS, type ConversationDoc } from './conversationsProjection.js';

/**
 * Conversations whose customer has waited for a human since `before` or longer, longest waiting first, across
 * companies, a page at a time (the notification sweep). One indexed equality and order: `needsHuman`, then
 * `handoffSince`; the caller stops at the first one waiting less long.
 */
export async function longestWaitingHandoffs(readStore: ReadStore, limit: number, cursor: string | null): Promise<{ items: ConversationDoc[]; nextCursor: string | null }> {
  return readStore.find<ConversationDoc>(CONVERSATIONS, { where: { needsHuman: true }, orderBy: [{ field: 'handoffSince', direction: 'asc' }], limit, cursor });
}
