import { autoAssignmentDecider, autoAssignmentStream } from '../../domain/company/autoAssignment/decider.js';
import type { CommandDeps } from '../deps.js';
import { handleCommand } from '../handleCommand.js';

/** PUT /api/settings/auto-assignment: turns automatic assignment on or off and sets each teammate's capacity. */
export const configureAutoAssignment = (deps: CommandDeps, input: { companyId: string; userId: string; enabled: boolean; capacity: number }) =>
  handleCommand(
    deps.eventStore,
    autoAssignmentStream(input.companyId),
    autoAssignmentDecider,
    { type: 'ConfigureAutoAssignment', enabled: input.enabled, capacity: input.capacity, by: `user:${input.userId}`, now: deps.clock.now().toISOString() },
    { metadata: { companyId: input.companyId, actor: `user:${input.userId}` } },
  );
