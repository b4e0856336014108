import { companyDecider, companyStream } from '../../domain/company/decider.js';
import { conversationDecider, conversationStream } from '../../domain/conversations/decider.js';
import { cachedState, loadState } from '../handleCommand.js';
import { deterministicId } from '../hashing.js';
import type { CommandDeps } from '../deps.js';

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

/** A new conversation starts in the first stage of the company's pipeline. */
export async function defaultStage(deps: CommandDeps, companyId: string, conversationId: string): Promise<string | null> {
  // The stage only matters when the conversation starts. One this process already saw exist still exists, so
  // no read is needed: handleCommand reads the stream right after anyway (one store read less per message).
  const known = cachedState(deps.eventStore, conversationStream(conversationId), conversationDecider);
  if (known?.state.exists) return known.state.stageId;
  const { state } = await loadState(deps.eventStore, conversationStream(conversationId), conversationDecider);
  if (state.exists) return state.stageId;
  const { state: company } = await loadState(deps.eventStore, companyStream(companyId), companyDecider);
  return company.exists ? (company.pipeline?.stages[0]?.id ?? null) : null;
}
