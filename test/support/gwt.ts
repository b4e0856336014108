import { expect } from 'vitest';
import type { Decider, DomainEvent } from '../../src/domain/decider.js';

/**
 * given(events).when(command).then(events) / .thenThrows(code): decider tests that read like the spec.
 * Event ids are ignored in comparisons unless the expectation sets one.
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
              expect(events.map(({ type, data }) => ({ type, data }))).toEqual(expected.map(({ type, data }) => ({ type, data })));
              return events.reduce(decider.evolve, state);
            },
            thenThrows(code: string) {
              expect(run).toThrowError(expect.objectContaining({ code }));
            },
          };
        },
      };
    },
  };
}
