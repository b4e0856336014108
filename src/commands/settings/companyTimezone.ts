import { companyStream } from '../../domain/company/decider.js';
import { timezoneDecider } from '../../domain/company/timezone/decider.js';
import type { CommandDeps } from '../deps.js';
import { handleCommand } from '../handleCommand.js';

/** PUT /api/settings/timezone: the company's timezone for analytics days, from now on. */
export async function setCompanyTimezone(deps: CommandDeps, input: { companyId: string; userId: string; timezone: string }) {
  return handleCommand(
    deps.eventStore,
    companyStream(input.companyId),
    timezoneDecider,
    { type: 'SetCompanyTimezone', timezone: input.timezone, by: `user:${input.userId}`, now: deps.clock.now().toISOString() },
    { metadata: { companyId: input.companyId, actor: `user:${input.userId}` } },
  );
}
