import type { ReadMarkerEvent } from './events.js';

export type ReadMarkerState = { customerMessages: number };

export const initialReadMarkerState: ReadMarkerState = { customerMessages: 0 };

export const evolveReadMarker = (state: ReadMarkerState, event: ReadMarkerEvent): ReadMarkerState => ({
  customerMessages: Math.max(state.customerMessages, event.data.customerMessages),
});
