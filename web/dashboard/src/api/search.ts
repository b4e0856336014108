// GET /api/search: full-text search over the company's messages and customer names.
import { query, request, type RequestOptions } from './client.js';
import type { Page } from './types.js';

export interface TextRange {
  start: number;
  end: number;
}

export interface SearchResult {
  conversationId: string;
  integrationId: number;
  connectorType: 'msgplatform' | 'webchat' | null;
  customerName: string | null;
  kind: 'message' | 'customer';
  message: { id: string; author: 'customer' | 'agent' | 'operator'; direction: 'inbound' | 'outbound'; createdAt: string } | null;
  /** Plain text with match offsets: rendered as text with <mark>s, never as HTML. */
  snippet: { text: string; highlights: TextRange[]; truncatedStart: boolean; truncatedEnd: boolean };
}

/** Longest query the API takes. */
export const MAX_SEARCH_LENGTH = 200;

export async function searchMessages(q: string, cursor: string | null, o?: RequestOptions): Promise<Page<SearchResult>> {
  const result = await request<{ results: SearchResult[]; nextCursor: string | null }>('GET', `/api/search${query({ q, limit: 20, cursor })}`, undefined, o);
  return { items: result.results, nextCursor: result.nextCursor };
}
