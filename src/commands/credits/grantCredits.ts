import { creditsDecider, creditsStream } from '../../domain/credits/decider.js';
import { handleCommand } from '../handleCommand.js';
import type { CommandDeps } from '../deps.js';

export async function grantCredits(deps: CommandDeps, input: { companyId: string; amountMicros: number; reason: string; grantedBy: string }) {
  const result = await handleCommand(
    deps.eventStore,
    creditsStream(input.companyId),
    creditsDecider,
    { type: 'GrantCredits', amountMicros: input.amountMicros, reason: input.reason, grantedBy: input.grantedBy, now: deps.clock.now().toISOString() },
    { metadata: { companyId: input.companyId, actor: `user:${input.grantedBy}` } },
  );
  return { position: result.position, balanceMicros: result.state.balanceMicros };
}
