import { z } from 'zod';
import { roleSchema } from '../../domain/accounts/team/events.js';
import type { ApiTokenDoc } from '../../projections/apiTokens/apiTokensProjection.js';
import type { TeammateDoc } from '../../projections/teammates/teammatesProjection.js';
import { bearerSecurity as security, errorResponses, listQuery } from './schemas.js';

/** Who created a token: its power is their current role (never above admin); role null once they left the team. */
const creator = z.object({ id: z.uuid(), name: z.string().nullable(), email: z.string().nullable(), role: roleSchema.nullable() });
const apiToken = z.object({ id: z.uuid(), name: z.string(), prefix: z.string(), createdAt: z.string(), lastUsedAt: z.string().nullable(), createdBy: creator.nullable() });

type TokenFields = Pick<ApiTokenDoc, 'id' | 'name' | 'prefix' | 'createdAt' | 'lastUsedAt' | 'createdBy'>;
const creatorView = (id: string | undefined, doc: TeammateDoc | null): z.infer<typeof creator> | null =>
  id ? { id, name: doc?.name ?? null, email: doc?.email ?? null, role: doc?.status === 'active' ? doc.role : null } : null;
export const apiTokenView = ({ token: d, creator: c }: { token: TokenFields; creator: TeammateDoc | null }): z.infer<typeof apiToken> => ({
  id: d.id,
  name: d.name,
  prefix: d.prefix,
  createdAt: d.createdAt,
  lastUsedAt: d.lastUsedAt,
  createdBy: creatorView(d.createdBy, c),
});

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
