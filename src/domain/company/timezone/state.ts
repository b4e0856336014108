import type { CompanyTimezoneEvent } from './events.js';

export const DEFAULT_TIMEZONE = 'UTC';

export type TimezoneState = { timezone: string };

export const initialTimezoneState: TimezoneState = { timezone: DEFAULT_TIMEZONE };

export function evolveTimezone(state: TimezoneState, event: CompanyTimezoneEvent): TimezoneState {
  // The company stream also carries registration, pipeline and LLM configuration events.
  return event.type === 'CompanyTimezoneSet' ? { timezone: event.data.timezone } : state;
}
