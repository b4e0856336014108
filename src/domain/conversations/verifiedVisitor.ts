import type { ConversationEvent } from './events.js';
import type { ConversationState } from './state.js';

/** A web-chat visitor's identity as the company's site signed it (the service checked the signature). */
export interface VerifiedVisitor {
  userId: string;
  email: string | null;
}

/**
 * CustomerIdentityVerified when the signed identity is news to the conversation: its first verification, or a
 * new email for the same user. Recorded once, not per message, so the stream does not grow with a chatty visitor.
 */
export function identityChange(state: Pick<ConversationState, 'verifiedVisitor'>, visitor: VerifiedVisitor | undefined, now: string): ConversationEvent[] {
  if (!visitor) return [];
  const known = state.verifiedVisitor;
  if (known && known.userId === visitor.userId && known.email === visitor.email) return [];
  return [{ type: 'CustomerIdentityVerified', data: { userId: visitor.userId, email: visitor.email, at: now } }];
}

/**
 * Whether a connection may continue this conversation: one a signed user verified belongs to that user, so a
 * visitor token left in a browser does not show their history (or act on their behalf) to anyone else.
 */
export const belongsToVisitor = (state: Pick<ConversationState, 'verifiedVisitor'>, visitor: VerifiedVisitor | null) =>
  !state.verifiedVisitor || state.verifiedVisitor.userId === visitor?.userId;
