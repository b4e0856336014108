import { apiTokenEvents } from '../../domain/apiTokens/events.js';
import type { Doc } from '../../ports/readStore.js';
import { defineProjection } from '../projection.js';

/** The Settings page list. Holds no secret and no hash: authentication reads the token's stream. */
export interface ApiTokenDoc extends Doc {
  companyId: string;
  name: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  revoked: boolean;
  /** The teammate who created it (its power is theirs). Missing on documents written before it was kept, until a rebuild. */
  createdBy?: string;
}

export const API_TOKENS = 'apiTokens';

export const apiTokensProjection = defineProjection(apiTokenEvents, {
  name: 'apiTokens',
  collections: [{ name: API_TOKENS, indexes: [['companyId', 'revoked', 'createdAt'], ['companyId', 'createdBy', 'revoked']] }],
  eventTypes: ['ApiTokenIssued', 'ApiTokenUsed', 'ApiTokenRevoked'],
  async apply(event, ctx) {
    const tokenId = event.stream.slice('apitoken-'.length);
    if (event.type === 'ApiTokenIssued') {
      ctx.put(API_TOKENS, {
        id: event.data.tokenId,
        companyId: event.data.companyId,
        name: event.data.name,
        prefix: event.data.prefix,
        createdAt: event.data.createdAt,
        lastUsedAt: null,
        revoked: false,
        createdBy: event.data.createdBy,
      } satisfies ApiTokenDoc);
      return;
    }
    const doc = await ctx.get<ApiTokenDoc>(API_TOKENS, tokenId);
    if (!doc) return;
    ctx.put(API_TOKENS, event.type === 'ApiTokenUsed' ? { ...doc, lastUsedAt: event.data.at } : { ...doc, revoked: true });
  },
});
