import { agentDecider, agentStream } from '../../domain/agents/decider.js';
import type { AgentConfig, AgentEvent } from '../../domain/agents/events.js';
import { DomainError } from '../../domain/errors.js';
import { agentVersionConfigs } from '../../domain/agents/versions.js';
import { handleCommand, toDomainEvent } from '../handleCommand.js';
import type { CommandDeps } from '../deps.js';
import { expectCompanyActions } from '../actions/queries.js';

/** Save a draft, publish a version, roll back: the agent's versions (`agent-<uuid>`); another company's agent is NOT_FOUND. */

type Who = { companyId: string; userId: string; agentId: string };

const metadataOf = (input: Who) => ({ companyId: input.companyId, actor: `user:${input.userId}` });

export async function saveAgentDraft(deps: CommandDeps, input: Who & { changes: Partial<AgentConfig> }) {
  await expectCompanyActions(deps.eventStore, input.companyId, input.changes.actionIds);
  return handleCommand(
    deps.eventStore,
    agentStream(input.agentId),
    agentDecider,
    { type: 'SaveAgentDraft', companyId: input.companyId, changes: input.changes, by: `user:${input.userId}`, now: deps.clock.now().toISOString() },
    { metadata: metadataOf(input) },
  );
}

/**
 * Publishes `version` (a rollback when it is older than the published one, which needs a reason). The
 * version's configuration comes from the agent's history, read whole: publishing is a rare, deliberate act,
 * and the state every message reads stays small (published and draft configurations only).
 */
export async function publishAgentVersion(deps: CommandDeps, input: Who & { version: number; reason: string | null; rollback?: boolean }) {
  const history = (await deps.eventStore.readStream(agentStream(input.agentId))).map((e) => toDomainEvent<AgentEvent>(e));
  const config = agentVersionConfigs(history).get(input.version);
  if (!config) throw new DomainError('NOT_FOUND', 'Version not found');
  return handleCommand(
    deps.eventStore,
    agentStream(input.agentId),
    agentDecider,
    {
      type: 'PublishAgentVersion',
      companyId: input.companyId,
      version: input.version,
      config,
      reason: input.reason,
      ...(input.rollback ? { rollback: true } : {}),
      by: `user:${input.userId}`,
      now: deps.clock.now().toISOString(),
    },
    { metadata: metadataOf(input) },
  );
}
