import { agentDecider, agentStream } from '../../domain/agents/decider.js';
import type { AgentConfig, AgentEvent } from '../../domain/agents/events.js';
import { DomainError } from '../../domain/errors.js';
import { agentVersionConfigs } from '../../domain/agents/versions.js';
import type { ReleaseGateInput } from '../../domain/agents/releaseGate.js';
import { handleCommand, toDomainEvent } from '../handleCommand.js';
import { loadReleaseCheck, releaseOutcome } from './releaseChecks.js';
import { loadTestCases } from './testRuns.js';
import type { CommandDeps } from '../deps.js';
import { expectCompanyActions } from '../actions/streamReads.js';

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
export async function publishAgentVersion(
  deps: CommandDeps,
  input: Who & { version: number; reason: string | null; rollback?: boolean; gate?: { releaseCheckId: string | null; overrideReason: string | null } },
) {
  const history = (await deps.eventStore.readStream(agentStream(input.agentId))).map((e) => toDomainEvent<AgentEvent>(e));
  const config = agentVersionConfigs(history).get(input.version);
  if (!config) throw new DomainError('NOT_FOUND', 'Version not found');
  const gate = input.gate ? await gateFacts(deps, input, input.gate) : undefined;
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
      ...(gate ? { gate } : {}),
      by: `user:${input.userId}`,
      now: deps.clock.now().toISOString(),
    },
    { metadata: metadataOf(input) },
  );
}

/** What the release gate weighs: the agent's cases now and the named check (another agent's or company's: NOT_FOUND). */
export async function gateFacts(deps: CommandDeps, who: Who, gate: { releaseCheckId: string | null; overrideReason: string | null }): Promise<ReleaseGateInput> {
  const cases = await loadTestCases(deps, who.agentId);
  const check = gate.releaseCheckId ? await loadReleaseCheck(deps, who.companyId, who.agentId, gate.releaseCheckId) : null;
  if (gate.releaseCheckId && !check) throw new DomainError('NOT_FOUND', 'Release check not found');
  return { cases, check: check ? releaseOutcome(check) : null, overrideReason: gate.overrideReason };
}
