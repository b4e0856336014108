import type { ApiTokenEvent } from '../../domain/apiTokens/apiToken.js';
import type { Doc } from '../../ports/readStore.js';
import type { Projection } from '../projection.js';

/** The Settings page list. Holds no secret and no hash: authentication reads the token's stream. */
export interface ApiTokenDoc extends Doc {
  companyId: string;
  name: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  revoked: boolean;
}

export const API_TOKENS = 'apiTokens';

export const apiTokensProjection: Projection = {
  name: 'apiTokens',
  collections: [{ name: API_TOKENS, indexes: ['companyId', 'createdAt', 'revoked'] }],
  eventTypes: ['ApiTokenIssued', 'ApiTokenUsed', 'ApiTokenRevoked'],
  async apply(event, ctx) {
    const e = event as unknown as ApiTokenEvent;
    const tokenId = event.stream.slice('apitoken-'.length);
    if (e.type === 'ApiTokenIssued') {
      ctx.put(API_TOKENS, {
        id: e.data.tokenId,
        companyId: e.data.companyId,
        name: e.data.name,
        prefix: e.data.prefix,
        createdAt: e.data.createdAt,
        lastUsedAt: null,
        revoked: false,
      } satisfies ApiTokenDoc);
      return;
    }
    const doc = await ctx.get<ApiTokenDoc>(API_TOKENS, tokenId);
    if (!doc) return;
    ctx.put(API_TOKENS, e.type === 'ApiTokenUsed' ? { ...doc, lastUsedAt: e.data.at } : { ...doc, revoked: true });
  },
};
