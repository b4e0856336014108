import { availabilityDecider, availabilityStream } from '../../domain/accounts/availability/decider.js';
import type { Availability } from '../../domain/accounts/availability/events.js';
import type { CommandDeps } from '../deps.js';
import { handleCommand } from '../handleCommand.js';

/** PUT /api/team/me/availability: a teammate says whether they take conversations now (their own only). */
export const setAvailability = (deps: CommandDeps, actor: { companyId: string; userId: string }, availability: Availability) =>
  handleCommand(
    deps.eventStore,
    availabilityStream(actor.userId),
    availabilityDecider,
    { type: 'SetAvailability', userId: actor.userId, companyId: actor.companyId, availability, now: deps.clock.now().toISOString() },
    { metadata: { companyId: actor.companyId, actor: `user:${actor.userId}` } },
  );
