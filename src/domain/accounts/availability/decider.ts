import type { Decider } from '../../decider.js';
import type { Availability, AvailabilityEvent } from './events.js';
import { evolveAvailability, initialAvailabilityState, type AvailabilityState } from './state.js';

export type AvailabilityCommand = { type: 'SetAvailability'; userId: string; companyId: string; availability: Availability; now: string };

const PREFIX = 'availability-';
export const availabilityStream = (userId: string) => `${PREFIX}${userId}`;
export const userIdOfAvailabilityStream = (stream: string) => stream.slice(PREFIX.length);

export const availabilityDecider: Decider<AvailabilityCommand, AvailabilityEvent, AvailabilityState> = {
  initialState: initialAvailabilityState,
  evolve: evolveAvailability,
  decide(command, state) {
    // Saying the same again records nothing: a second click, a retried request.
    if (command.availability === state.availability) return [];
    return [
      {
        type: 'AvailabilitySet',
        data: { userId: command.userId, companyId: command.companyId, availability: command.availability, previous: state.availability, at: command.now },
      },
    ];
  },
};
