import { expect } from 'vitest';
import type { Decider, DomainEvent } from '../../src/domain/decider.js';

/**
 * given(events).when(command).then(events) / .thenThrows(code): decider tests that read like the spec.
 * Event ids are compared only where the expectation sets one (deterministic ids); otherwise they are ignored.
 */
export function specFor<C, E extends DomainEvent, S>(decider: Decider<C, E, S>) {
  return {
    given(history: E[]) {
      const state = history.reduce(decider.evolve, decider.initialState);
      return {
        state,
        when(command: C) {
          const run = () => decider.decide(command, state);
          return {
            then(expected: E[]) {
              const events = run();
              // Ids the expectation leaves out are random (handleCommand assigns them) and not compared; an id it
              // sets is a deterministic one that dedupe relies on, and must match.
              const shape = (e: E, i: number) => (expected[i]?.id === undefined ? { type: e.type, data: e.data } : { type: e.type, data: e.data, id: e.id });
              expect(events.map(shape)).toEqual(expected.map(shape));
              return events.reduce(decider.evolve, state);
            },
            /** `message`: what the error must also say (which field, which rule). */
            thenThrows(code: string, message?: RegExp) {
              expect(run).toThrowError(expect.objectContaining(message ? { code, message: expect.stringMatching(message) } : { code }));
            },
          };
        },
      };
    },
  };
}
