import type { FindQuery, Page, ReadStore } from '../../ports/readStore.js';
import { API_TOKENS, type ApiTokenDoc } from './apiTokensProjection.js';

/** The company's API tokens not revoked, newest first. */
export async function listApiTokens(readStore: ReadStore, companyId: string, page: Pick<FindQuery, 'limit' | 'cursor'>): Promise<Page<ApiTokenDoc>> {
  return readStore.find<ApiTokenDoc>(API_TOKENS, {
    where: { companyId, revoked: false },
    orderBy: [{ field: 'createdAt', direction: 'desc' }],
    limit: page.limit,
    cursor: page.cursor,
  });
}
