import { conversationDecider } from '../../domain/conversations/decider.js';
import { deterministicId } from '../hashing.js';

/**
 * Gives the events of one delivery ids derived from its dedupe key, so a racing or late redelivery appends
 * the same ids and the store refuses them. Keyed by event type, not position: a late redelivery decided on
 * a newer state (no ConversationStarted this time) still carries its MessageReceived's original id.
 */
export function withDeterministicIds(seed: string): typeof conversationDecider {
  return {
    ...conversationDecider,
    decide: (command, state) => conversationDecider.decide(command, state).map((e) => ({ ...e, id: deterministicId(`${seed}:${e.type}`) })),
  };
}

/** The AI session a delivery opens: derived from the message, so two racing deliveries decide the same session. */
export const sessionIdFor = (messageId: string) => deterministicId(`session:${messageId}`);

/** The conversation id is derived from (integration, customer), so a webhook finds its stream without a lookup. */
export const conversationIdFor = (integrationId: number, clientId: string | number) => deterministicId(`conversation:${integrationId}:${String(clientId)}`);
