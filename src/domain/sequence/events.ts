import { z } from 'zod';

/**
 * Integer ids (company keys, integration ids) come from a sequence stream: the next value is decided
 * on the stream's own history and appended with its expected revision, so two callers never get the
 * same value (the loser retries) — never max()+1 over a read model.
 */
export const sequenceEvents = {
  SequenceValueReserved: z.object({ value: z.number().int().positive(), reservedFor: z.string() }),
};
export type SequenceEvent = { type: 'SequenceValueReserved'; data: z.infer<typeof sequenceEvents.SequenceValueReserved> };
