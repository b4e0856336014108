import type { Decider } from '../decider.js';
import { decide } from './businessLogic.js';
import type { ConversationCommand } from './commands.js';
import type { ConversationStreamEvent } from './events.js';
import { evolve, initialConversationState, type ConversationState } from './state.js';

export type { ConversationCommand } from './commands.js';
export { initialConversationState, isDuplicate, textFingerprint, UNANSWERED_KEPT, type ConversationState, type SessionState } from './state.js';

/** The conversation aggregate: its state (state.ts), its business logic (businessLogic.ts), composed. */
export const conversationDecider: Decider<ConversationCommand, ConversationStreamEvent, ConversationState> = {
  initialState: initialConversationState,
  evolve,
  decide,
};

const CONVERSATION_PREFIX = 'conversation-';
export const conversationStream = (conversationId: string) => `${CONVERSATION_PREFIX}${conversationId}`;
export const conversationIdOfStream = (stream: string) => stream.slice(CONVERSATION_PREFIX.length);
