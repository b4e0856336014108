import { randomUUID } from 'node:crypto';
import type { Role } from '../../domain/accounts/team/events.js';
import { apiTokenDecider, apiTokenRole, apiTokenStream } from '../../domain/apiTokens/decider.js';
import { memberRole } from '../accounts/membership.js';
import { handleCommand, loadState } from '../handleCommand.js';
import { constantTimeEqualHex, randomSecret, sha256Hex } from '../hashing.js';
import type { CommandDeps } from '../deps.js';

/** `mas_<token id, 32 hex>_<secret>`: the id finds the token's stream without a lookup table. */
const TOKEN_PATTERN = /^mas_([0-9a-f]{32})_([A-Za-z0-9_-]{43})$/;
export const isApiTokenShaped = (token: string) => token.startsWith('mas_');

const toUuid = (hex: string) => `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;

export async function createApiToken(deps: CommandDeps, input: { companyId: string; userId: string; name: string }) {
  const tokenId = randomUUID();
  const secret = randomSecret();
  const token = `mas_${tokenId.replaceAll('-', '')}_${secret}`;
  const createdAt = deps.clock.now().toISOString();
  const prefix = token.slice(0, 12);
  const result = await handleCommand(
    deps.eventStore,
    apiTokenStream(tokenId),
    apiTokenDecider,
    { type: 'IssueApiToken', tokenId, companyId: input.companyId, name: input.name, prefix, secretHash: sha256Hex(secret), createdAt, createdBy: input.userId },
    { metadata: { companyId: input.companyId, actor: `user:${input.userId}` } },
  );
  return { token, apiToken: { id: tokenId, name: input.name, prefix, createdAt, lastUsedAt: null, createdBy: input.userId }, position: result.position };
}

export async function revokeApiToken(deps: CommandDeps, input: { companyId: string; userId: string; tokenId: string }) {
  const result = await handleCommand(
    deps.eventStore,
    apiTokenStream(input.tokenId),
    apiTokenDecider,
    { type: 'RevokeApiToken', companyId: input.companyId, revokedBy: input.userId, now: deps.clock.now().toISOString() },
    { metadata: { companyId: input.companyId, actor: `user:${input.userId}` } },
  );
  return { position: result.position };
}

export type VerifiedApiToken = { tokenId: string; companyId: string; createdBy: string; role: Role };

/**
 * The token and what it may do, or null when it may do nothing: unknown, revoked, or its creator is no longer a
 * member. Reads the token's own stream and the team's (both strongly consistent, cached state folded from the
 * last known revision: constant cost per request), so a revocation, a removal or a demotion of the creator is
 * effective on the very next request.
 */
export async function verifyApiToken(deps: CommandDeps, token: string): Promise<VerifiedApiToken | null> {
  const m = TOKEN_PATTERN.exec(token);
  if (!m) return null;
  const tokenId = toUuid(m[1]!);
  const { state } = await loadState(deps.eventStore, apiTokenStream(tokenId), apiTokenDecider);
  if (state.status !== 'active' || !constantTimeEqualHex(state.secretHash, sha256Hex(m[2]!))) return null;
  const role = apiTokenRole(await memberRole(deps, state.companyId, state.createdBy));
  if (!role) return null;
  // lastUsedAt is best effort: a lost race or failure must not fail the caller's request.
  handleCommand(deps.eventStore, apiTokenStream(tokenId), apiTokenDecider, { type: 'RecordApiTokenUse', now: deps.clock.now().toISOString() }, { maxRetries: 0 }).catch(
    (err) => deps.logger.debug({ err: (err as Error).name, tokenId }, 'lastUsedAt not recorded'),
  );
  return { tokenId, companyId: state.companyId, createdBy: state.createdBy, role };
}
