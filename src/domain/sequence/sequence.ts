import { z } from 'zod';
import type { Decider } from '../decider.js';

/**
 * Integer ids (company keys, integration ids) come from a sequence stream: the next value is decided
 * on the stream's own history and appended with its expected revision, so two callers never get the
 * same value (the loser retries) — never max()+1 over a read model.
 */
export const sequenceEvents = {
  SequenceValueReserved: z.object({ value: z.number().int().positive(), reservedFor: z.string() }),
};
export type SequenceEvent = { type: 'SequenceValueReserved'; data: z.infer<typeof sequenceEvents.SequenceValueReserved> };
export type ReserveNextValue = { reservedFor: string };
export type SequenceState = { last: number };

export const sequenceDecider: Decider<ReserveNextValue, SequenceEvent, SequenceState> = {
  initialState: { last: 0 },
  evolve: (_state, event) => ({ last: event.data.value }),
  decide: (command, state) => [{ type: 'SequenceValueReserved', data: { value: state.last + 1, reservedFor: command.reservedFor } }],
};

export const sequenceStream = (name: 'companies' | 'integrations') => `sequence-${name}`;
