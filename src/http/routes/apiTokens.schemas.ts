import { z } from 'zod';
import type { ApiTokenDoc } from '../../projections/apiTokens/apiTokensProjection.js';
import { bearerSecurity as security, errorResponses, listQuery } from './schemas.js';

const apiToken = z.object({ id: z.uuid(), name: z.string(), prefix: z.string(), createdAt: z.string(), lastUsedAt: z.string().nullable() });
export const apiTokenView = (d: ApiTokenDoc): z.infer<typeof apiToken> => ({ id: d.id, name: d.name, prefix: d.prefix, createdAt: d.createdAt, lastUsedAt: d.lastUsedAt });

export const listApiTokensSchema = {
  tags: ['settings'],
  security,
  querystring: listQuery,
  response: { 200: z.object({ apiTokens: z.array(apiToken), nextCursor: z.string().nullable() }), ...errorResponses },
};

export const createApiTokenSchema = {
  tags: ['settings'],
  security,
  body: z.strictObject({ name: z.string().trim().min(1).max(100) }),
  response: { 201: z.object({ token: z.string(), apiToken }), ...errorResponses },
};

export const revokeApiTokenSchema = {
  tags: ['settings'],
  security,
  params: z.object({ id: z.string().max(64) }),
  response: { 204: z.null(), ...errorResponses },
};
