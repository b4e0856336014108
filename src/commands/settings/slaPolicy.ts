import { slaPolicyDecider, slaPolicyStream } from '../../domain/company/slaPolicy/decider.js';
import type { SlaPolicy } from '../../domain/company/slaPolicy/events.js';
import type { CommandDeps } from '../deps.js';
import { handleCommand } from '../handleCommand.js';

/** PUT /api/settings/sla: the company's SLA targets per priority (and whether they are measured at all). */
export const setSlaPolicy = (deps: CommandDeps, input: { companyId: string; userId: string; policy: SlaPolicy }) =>
  handleCommand(
    deps.eventStore,
    slaPolicyStream(input.companyId),
    slaPolicyDecider,
    { type: 'SetSlaPolicy', policy: input.policy, by: `user:${input.userId}`, now: deps.clock.now().toISOString() },
    { metadata: { companyId: input.companyId, actor: `user:${input.userId}` } },
  );
