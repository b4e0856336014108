import type { Decider } from '../decider.js';
import type { SequenceEvent } from './events.js';
import { evolveSequence, initialSequenceState, type SequenceState } from './state.js';

export type ReserveNextValue = { reservedFor: string };

export const sequenceDecider: Decider<ReserveNextValue, SequenceEvent, SequenceState> = {
  initialState: initialSequenceState,
  evolve: evolveSequence,
  decide: (command, state) => [{ type: 'SequenceValueReserved', data: { value: state.last + 1, reservedFor: command.reservedFor } }],
};

export const sequenceStream = (name: 'companies' | 'integrations') => `sequence-${name}`;
