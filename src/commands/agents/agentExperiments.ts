import { randomUUID } from 'node:crypto';
import { agentDecider, agentStream } from '../../domain/agents/decider.js';
import type { AgentEvent } from '../../domain/agents/events.js';
import { agentVersionConfigs } from '../../domain/agents/versions.js';
import { DomainError } from '../../domain/errors.js';
import { handleCommand, toDomainEvent } from '../handleCommand.js';
import type { CommandDeps } from '../deps.js';
import { gateFacts } from './agentVersions.js';

/** Start and end an agent's experiment (on `agent-<uuid>`); another company's agent is NOT_FOUND. */

type Who = { companyId: string; userId: string; agentId: string };

const metadataOf = (input: Who) => ({ companyId: input.companyId, actor: `user:${input.userId}` });

export interface ExperimentInput {
  /** Arm a's version first. */
  versions: [number, number];
  /** Percent of the AI-answered conversations for each arm; they add up to 100. */
  split: [number, number];
  holdout: number;
  confidenceLevel: number;
  /** The release check of the arm the gate weighs (newer than the published version, or older but never published), or an owner's override reason (agentVersions.ts's gate). */
  gate: { releaseCheckId: string | null; overrideReason: string | null };
}

/**
 * Starts an experiment with a new id. Each arm's configuration comes from the agent's history, read whole like
 * a publish: starting is a rare, deliberate act, and every answer then reads the arms from the agent's state.
 */
export async function startAgentExperiment(deps: CommandDeps, input: Who & ExperimentInput) {
  const history = (await deps.eventStore.readStream(agentStream(input.agentId))).map((e) => toDomainEvent<AgentEvent>(e));
  const configs = agentVersionConfigs(history);
  const arms = input.versions.map((version, i) => {
    const config = configs.get(version);
    if (!config) throw new DomainError('NOT_FOUND', 'Version not found');
    return { version, share: input.split[i]!, config };
  });
  const gate = await gateFacts(deps, input, input.gate);
  const experimentId = randomUUID();
  const result = await handleCommand(
    deps.eventStore,
    agentStream(input.agentId),
    agentDecider,
    {
      type: 'StartAgentExperiment',
      companyId: input.companyId,
      experimentId,
      arms: [arms[0]!, arms[1]!],
      gate,
      holdout: input.holdout,
      confidenceLevel: input.confidenceLevel,
      by: `user:${input.userId}`,
      now: deps.clock.now().toISOString(),
    },
    { metadata: metadataOf(input) },
  );
  return { ...result, experimentId };
}

/** Ends the running experiment, publishing `winner` with who, when and why. */
export async function endAgentExperiment(deps: CommandDeps, input: Who & { experimentId: string; winner: number; reason: string }) {
  return handleCommand(
    deps.eventStore,
    agentStream(input.agentId),
    agentDecider,
    { type: 'EndAgentExperiment', companyId: input.companyId, experimentId: input.experimentId, winner: input.winner, reason: input.reason, by: `user:${input.userId}`, now: deps.clock.now().toISOString() },
    { metadata: metadataOf(input) },
  );
}
