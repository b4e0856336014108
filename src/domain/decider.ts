/** A domain event as deciders see it: a past-tense fact. `id` is set when it must be deterministic (dedupe). */
export interface DomainEvent<T extends string = string, D = unknown> {
  type: T;
  data: D;
  id?: string;
}

/** Pure decision logic of one aggregate: no I/O, no clock (commands carry the time), no framework. */
export interface Decider<C, E extends DomainEvent, S> {
  initialState: S;
  evolve(state: S, event: E): S;
  /** Returns the new events (possibly none) or throws a DomainError. */
  decide(command: C, state: S): E[];
}
