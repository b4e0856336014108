import type { Decider } from '../../decider.js';
import { DomainError } from '../../errors.js';
import { MAX_CAPACITY, type AutoAssignmentEvent } from './events.js';
import { evolveAutoAssignment, initialAutoAssignmentState, type AutoAssignmentState } from './state.js';

export type AutoAssignmentCommand = { type: 'ConfigureAutoAssignment'; enabled: boolean; capacity: number; by: string; now: string };

const PREFIX = 'auto-assignment-';
export const autoAssignmentStream = (companyId: string) => `${PREFIX}${companyId}`;
export const companyIdOfAutoAssignmentStream = (stream: string) => stream.slice(PREFIX.length);

export const autoAssignmentDecider: Decider<AutoAssignmentCommand, AutoAssignmentEvent, AutoAssignmentState> = {
  initialState: initialAutoAssignmentState,
  evolve: evolveAutoAssignment,
  decide(command, state) {
    if (!Number.isInteger(command.capacity) || command.capacity < 1 || command.capacity > MAX_CAPACITY) {
      throw new DomainError('VALIDATION_ERROR', `capacity must be a whole number from 1 to ${MAX_CAPACITY}`);
    }
    if (command.enabled === state.enabled && command.capacity === state.capacity) return [];
    return [{ type: 'AutoAssignmentConfigured', data: { enabled: command.enabled, capacity: command.capacity, by: command.by, at: command.now } }];
  },
};
