import { retentionDecider, retentionStream } from '../../domain/company/retention/decider.js';
import type { RetentionState } from '../../domain/company/retention/state.js';
import type { EventStore } from '../../ports/eventStore.js';
import type { CommandDeps } from '../deps.js';
import { handleCommand, loadState } from '../handleCommand.js';

/** PUT /api/settings/retention: how long the company keeps closed conversations (null: forever). */
export const setRetentionPolicy = (deps: CommandDeps, input: { companyId: string; userId: string; conversationDays: number | null }) =>
  handleCommand(
    deps.eventStore,
    retentionStream(input.companyId),
    retentionDecider,
    { type: 'SetRetentionPolicy', conversationDays: input.conversationDays, by: `user:${input.userId}`, now: deps.clock.now().toISOString() },
    { metadata: { companyId: input.companyId, actor: `user:${input.userId}` } },
  );

/** The company's period, from its stream (strongly consistent). */
export async function loadRetentionPolicy(eventStore: EventStore, companyId: string): Promise<RetentionState> {
  const { state } = await loadState(eventStore, retentionStream(companyId), retentionDecider);
  return state;
}
