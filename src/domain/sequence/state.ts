import type { SequenceEvent } from './events.js';

export type SequenceState = { last: number };

export const initialSequenceState: SequenceState = { last: 0 };

export const evolveSequence = (_state: SequenceState, event: SequenceEvent): SequenceState => ({ last: event.data.value });
