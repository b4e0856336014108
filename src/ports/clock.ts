/** The time commands are decided at: injected so tests and the processor can control it. */
export interface Clock {
  now(): Date;
}
export const systemClock: Clock = { now: () => new Date() };
