import type { FindQuery, Page, ReadStore } from '../../ports/readStore.js';
import { CANNED_REPLIES, type CannedReplyDoc } from './cannedRepliesProjection.js';

/** The company's canned replies, by shortcut. */
export async function listCannedReplies(readStore: ReadStore, companyId: string, page: Pick<FindQuery, 'limit' | 'cursor'>): Promise<Page<CannedReplyDoc>> {
  return readStore.find<CannedReplyDoc>(CANNED_REPLIES, {
    where: { companyId },
    orderBy: [{ field: 'shortcut', direction: 'asc' }],
    limit: page.limit,
    cursor: page.cursor ?? null,
  });
}
