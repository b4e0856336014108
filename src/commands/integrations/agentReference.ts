import { DomainError } from '../../domain/errors.js';
import type { EventStore } from '../../ports/eventStore.js';
import { loadAgent } from '../agents/streamReads.js';

/**
 * An integration may only point at an agent of its own company that exists and is not deleted. Read from
 * the agent's stream, not the read model, so an agent created a moment ago is found and one deleted a moment
 * ago is not. A random id and another company's agent get the same answer (404, as for any other company's
 * resource), so the answer never reveals that the agent exists elsewhere.
 *
 * `undefined` (not being changed) and `null` (no agent) need no check. The agent can still be deleted right
 * after this check; the reply pipeline re-reads it per message and treats a missing agent as "no agent".
 */
export async function checkAgentReference(eventStore: EventStore, companyId: string, agentId: string | null | undefined): Promise<void> {
  if (agentId === undefined || agentId === null) return;
  if ((await loadAgent(eventStore, companyId, agentId)) === null) {
    throw new DomainError('NOT_FOUND', 'agentId: agent not found');
  }
}
