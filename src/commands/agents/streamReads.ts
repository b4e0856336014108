import { agentDecider, agentStream } from '../../domain/agents/decider.js';
import { type LiveAgent } from '../../domain/agents/state.js';
import { isActive } from '../../domain/lifecycle.js';
import type { EventStore } from '../../ports/eventStore.js';
import { loadState } from '../handleCommand.js';

/**
 * The agent's current settings straight from its stream (strongly consistent), or null when it does not
 * exist, was deleted or belongs to another company. For the API and the reply pipeline.
 */
export async function loadAgent(eventStore: EventStore, companyId: string, agentId: string): Promise<LiveAgent | null> {
  const { state } = await loadState(eventStore, agentStream(agentId), agentDecider);
  return isActive(state) && state.companyId === companyId ? state : null;
}
