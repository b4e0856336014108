import { randomUUID } from 'node:crypto';
import { agentDecider, agentStream } from '../../domain/agents/decider.js';
import { agentDefaults, type AgentSettings } from '../../domain/agents/events.js';
import { expectCompanyActions } from '../actions/streamReads.js';
import { handleCommand } from '../handleCommand.js';
import type { CommandDeps } from '../deps.js';
import { loadTestCases } from './testRuns.js';

/** Create, update and delete an agent (`agent-<uuid>`); another company's agent is NOT_FOUND. */

export type AgentInput = Partial<AgentSettings>;

const metadataOf = (input: { companyId: string; userId: string }) => ({ companyId: input.companyId, actor: `user:${input.userId}` });

export async function createAgent(deps: CommandDeps, input: { companyId: string; userId: string; name: string } & AgentInput) {
  const agentId = randomUUID();
  const { companyId, userId: _u, ...given } = input;
  const settings: AgentSettings = {
    ...agentDefaults,
    ...(Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined)) as Partial<AgentSettings>),
    name: input.name,
  };
  await expectCompanyActions(deps.eventStore, companyId, settings.actionIds);
  return handleCommand(
    deps.eventStore,
    agentStream(agentId),
    agentDecider,
    { type: 'CreateAgent', agentId, companyId, now: deps.clock.now().toISOString(), ...settings },
    { metadata: metadataOf(input) },
  );
}

/** A team that relies on the gate (a required test case) changes behaviour only through a draft and a publish. */
export async function updateAgent(deps: CommandDeps, input: { companyId: string; userId: string; agentId: string; changes: AgentInput }) {
  await expectCompanyActions(deps.eventStore, input.companyId, input.changes.actionIds);
  const releaseGated = (await loadTestCases(deps, input.agentId)).some((c) => c.required);
  return handleCommand(
    deps.eventStore,
    agentStream(input.agentId),
    agentDecider,
    { type: 'UpdateAgent', companyId: input.companyId, changes: input.changes, releaseGated, by: `user:${input.userId}`, now: deps.clock.now().toISOString() },
    { metadata: metadataOf(input) },
  );
}

export async function deleteAgent(deps: CommandDeps, input: { companyId: string; userId: string; agentId: string }) {
  return handleCommand(
    deps.eventStore,
    agentStream(input.agentId),
    agentDecider,
    { type: 'DeleteAgent', companyId: input.companyId, now: deps.clock.now().toISOString() },
    { metadata: metadataOf(input) },
  );
}
