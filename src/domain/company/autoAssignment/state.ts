import type { AutoAssignmentEvent } from './events.js';

/** Off until a company turns it on; three open conversations a person is where a new team usually starts. */
export const DEFAULT_CAPACITY = 3;

export type AutoAssignmentState = { enabled: boolean; capacity: number };

export const initialAutoAssignmentState: AutoAssignmentState = { enabled: false, capacity: DEFAULT_CAPACITY };

export function evolveAutoAssignment(_state: AutoAssignmentState, event: AutoAssignmentEvent): AutoAssignmentState {
  return { enabled: event.data.enabled, capacity: event.data.capacity };
}
