import type { CompanyTimezoneEvent } from '../timezone/events.js';
import { DEFAULT_TIMEZONE } from '../timezone/state.js';
import type { BusinessHours, BusinessHoursEvent } from './events.js';

/** The schedule and the timezone it is read in: both live on the company stream, so one read gives both. */
export type BusinessHoursState = { hours: BusinessHours | null; timezone: string };

export const initialBusinessHoursState: BusinessHoursState = { hours: null, timezone: DEFAULT_TIMEZONE };

export function evolveBusinessHours(state: BusinessHoursState, event: BusinessHoursEvent | CompanyTimezoneEvent): BusinessHoursState {
  // The company stream also carries registration, pipeline and LLM configuration events.
  switch (event.type) {
    case 'BusinessHoursSet': {
      const { by: _by, at: _at, ...hours } = event.data;
      return { ...state, hours };
    }
    case 'CompanyTimezoneSet':
      return { ...state, timezone: event.data.timezone };
    default:
      return state;
  }
}
