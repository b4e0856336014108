import type { Availability, AvailabilityEvent } from './events.js';

/** A teammate who never said otherwise takes conversations: they joined to work the inbox. */
export const DEFAULT_AVAILABILITY: Availability = 'online';

export type AvailabilityState = { availability: Availability };

export const initialAvailabilityState: AvailabilityState = { availability: DEFAULT_AVAILABILITY };

export function evolveAvailability(_state: AvailabilityState, event: AvailabilityEvent): AvailabilityState {
  return { availability: event.data.availability };
}
