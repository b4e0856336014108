import { businessHoursDecider } from '../../domain/company/businessHours/decider.js';
import type { BusinessHours } from '../../domain/company/businessHours/events.js';
import { companyStream } from '../../domain/company/decider.js';
import type { CommandDeps } from '../deps.js';
import { handleCommand } from '../handleCommand.js';

/** PUT /api/settings/business-hours: when people are there, from now on (read in the company timezone). */
export async function setBusinessHours(deps: CommandDeps, input: { companyId: string; userId: string; hours: BusinessHours }) {
  return handleCommand(
    deps.eventStore,
    companyStream(input.companyId),
    businessHoursDecider,
    { type: 'SetBusinessHours', hours: input.hours, by: `user:${input.userId}`, now: deps.clock.now().toISOString() },
    { metadata: { companyId: input.companyId, actor: `user:${input.userId}` } },
  );
}
