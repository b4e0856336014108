// GET /api/search: full-text search over the company's messages and customer names.
import { query, request, type RequestOptions } from './client.js';
import type { SearchPage, ServerLimits } from './serverTypes.js';
import type { Page } from './types.js';

/** Plain text with match offsets in `snippet`: rendered as text with <mark>s, never as HTML. */
export type SearchResult = SearchPage['results'][number];
export type TextRange = SearchResult['snippet']['highlights'][number];

/** Longest query the API takes. */
export const MAX_SEARCH_LENGTH = 200 satisfies ServerLimits['searchQuery'];

export async function searchMessages(q: string, cursor: string | null, o?: RequestOptions): Promise<Page<SearchResult>> {
  const result = await request<SearchPage>('GET', `/api/search${query({ q, limit: 20, cursor })}`, undefined, o);
  return { items: result.results, nextCursor: result.nextCursor };
}
