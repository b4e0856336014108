import { createHmac, randomUUID } from 'node:crypto';
import { conversationDecider, conversationStream, type VerifiedVisitor } from '../../domain/conversations/decider.js';
import type { SecretBox } from '../../ports/secretBox.js';
import type { WebchatIntegration } from '../integrations/streamReads.js';
import { constantTimeEqualHex } from '../hashing.js';
import { handleCommand, loadState } from '../handleCommand.js';
import type { CommandDeps } from '../deps.js';

/** What the widget claims about its visitor (hello `userId`, `email`, `userHash`): nothing of it is trusted unchecked. */
export interface IdentityClaim {
  userId?: string;
  email?: string;
  userHash?: string;
}

/**
 * The text the company's site signs: the user id, and the email on a second line when there is one. A user id
 * holds no line break (the widget refuses it), so no two claims sign the same text, and an email cannot be
 * swapped under another user's signature.
 */
export const signedIdentityText = (userId: string, email?: string | null) => (email ? `${userId}\n${email}` : userId);

/** HMAC-SHA256(secret, signedIdentityText) in hex: what the site computes on its server. */
export const identityHash = (secret: string, userId: string, email?: string | null) => createHmac('sha256', secret).update(signedIdentityText(userId, email)).digest('hex');

export type IdentityVerdict = { ok: true; visitor: VerifiedVisitor | null } | { ok: false; code: 'IDENTITY_REQUIRED' | 'INVALID_IDENTITY'; message: string };

/**
 * Checks a claim against the integration's secret, in constant time. `off`: claims are not read. `optional`: a
 * missing or wrong signature leaves the visitor anonymous. `required`: it refuses the visitor.
 */
export function checkVisitorIdentity(integration: WebchatIntegration, claim: IdentityClaim, secretBox: SecretBox): IdentityVerdict {
  const mode = integration.identityVerification ?? 'off';
  if (mode === 'off') return { ok: true, visitor: null };
  const refuse = (code: 'IDENTITY_REQUIRED' | 'INVALID_IDENTITY', message: string): IdentityVerdict => (mode === 'required' ? { ok: false, code, message } : { ok: true, visitor: null });
  if (!claim.userId) return refuse('IDENTITY_REQUIRED', 'This chat needs a signed-in visitor: the page must pass userId and userHash');
  const signed = Boolean(claim.userHash && integration.identitySecret && constantTimeEqualHex(identityHash(secretBox.open(integration.identitySecret), claim.userId, claim.email), claim.userHash));
  if (!signed) return refuse('INVALID_IDENTITY', "The visitor's identity signature (userHash) is not valid for this chat");
  return { ok: true, visitor: { userId: claim.userId, email: claim.email ?? null } };
}

/** The signed identity a conversation holds now, from its (cached) state; null when it has none or does not exist. */
export async function conversationVisitor(deps: CommandDeps, conversationId: string): Promise<{ exists: boolean; visitor: VerifiedVisitor | null }> {
  const { state } = await loadState(deps.eventStore, conversationStream(conversationId), conversationDecider);
  return { exists: state.exists, visitor: state.verifiedVisitor };
}

/** Records a returning visitor's signed identity on their conversation (nothing when it is not news). */
export async function recordVisitorIdentity(deps: CommandDeps, integration: WebchatIntegration, conversationId: string, visitor: VerifiedVisitor) {
  return handleCommand(
    deps.eventStore,
    conversationStream(conversationId),
    conversationDecider,
    { type: 'VerifyCustomerIdentity', visitor, now: deps.clock.now().toISOString() },
    { metadata: { companyId: integration.companyId, actor: 'visitor', correlationId: randomUUID() } },
  );
}
