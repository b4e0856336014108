import { redactionDecider, redactionStream } from '../../domain/company/redaction/decider.js';
import { DomainError } from '../../domain/errors.js';
import { loadAgent } from '../agents/streamReads.js';
import type { CommandDeps } from '../deps.js';
import { handleCommand } from '../handleCommand.js';

/**
 * PUT /api/settings/redaction: turns redaction before the model on or off for the company, with per-agent
 * overrides. An agent named must be one of the company's (another company's agent is answered like a missing one).
 */
export async function configureRedaction(deps: CommandDeps, input: { companyId: string; userId: string; enabled: boolean; agents: Record<string, boolean> }) {
  for (const agentId of Object.keys(input.agents)) {
    if (!(await loadAgent(deps.eventStore, input.companyId, agentId))) throw new DomainError('NOT_FOUND', 'Agent not found');
  }
  return handleCommand(
    deps.eventStore,
    redactionStream(input.companyId),
    redactionDecider,
    { type: 'ConfigureRedaction', enabled: input.enabled, agents: input.agents, by: `user:${input.userId}`, now: deps.clock.now().toISOString() },
    { metadata: { companyId: input.companyId, actor: `user:${input.userId}` } },
  );
}
