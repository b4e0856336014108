import type { FindQuery, Page, ReadStore } from '../../ports/readStore.js';
import { findCompanyTeammate } from '../teammates/queries.js';
import type { TeammateDoc } from '../teammates/teammatesProjection.js';
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

/** Each token with its creator as the team list knows them (null: unknown); one lookup per creator on the page. */
export async function withCreators<T extends Pick<ApiTokenDoc, 'createdBy'>>(
  readStore: ReadStore,
  companyId: string,
  tokens: T[],
): Promise<{ token: T; creator: TeammateDoc | null }[]> {
  const ids = [...new Set(tokens.flatMap((t) => (t.createdBy ? [t.createdBy] : [])))];
  const found = await Promise.all(ids.map((id) => findCompanyTeammate(readStore, companyId, id)));
  const creators = new Map(ids.map((id, i) => [id, found[i] ?? null]));
  return tokens.map((token) => ({ token, creator: (token.createdBy && creators.get(token.createdBy)) || null }));
}

/** Up to `limit` ids of the tokens `userId` created that are not revoked (what their removal revokes, a page at a time). */
export async function liveApiTokenIdsCreatedBy(readStore: ReadStore, companyId: string, userId: string, limit: number): Promise<string[]> {
  const page = await readStore.find<ApiTokenDoc>(API_TOKENS, { where: { companyId, createdBy: userId, revoked: false }, limit });
  return page.items.map((d) => d.id);
}
