import { z } from 'zod';
import type { Decider } from '../decider.js';
import { DomainError } from '../errors.js';

/**
 * The company's timezone (an IANA name such as `Europe/Berlin`), carried on the company stream next to the
 * company's other events. Analytics bucket each event into the local day of the timezone in force when it
 * happened, so a change applies from then on and a rebuild reproduces the same days.
 */
export const DEFAULT_TIMEZONE = 'UTC';
export const TIMEZONE_MAX_LENGTH = 64;

export const companyTimezoneEvents = {
  CompanyTimezoneSet: z.object({
    timezone: z.string().min(1).max(TIMEZONE_MAX_LENGTH),
    previousTimezone: z.string().min(1).max(TIMEZONE_MAX_LENGTH),
    by: z.string().max(100).nullable(),
    at: z.iso.datetime(),
  }),
};
type Events = typeof companyTimezoneEvents;
export type CompanyTimezoneEvent = { [K in keyof Events]: { type: K; data: z.infer<Events[K]> } }[keyof Events];

// Names only: `Area/Location` or a single word such as UTC. Offsets ("+02:00") and abbreviations Intl may
// accept in some versions are refused, so a stored value always means one IANA zone, whatever the runtime.
const namePattern = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+){0,2}$/;

/** The canonical IANA name (as Intl spells it) of `name`, or null when it names no timezone. */
export function canonicalTimezone(name: string): string | null {
  if (typeof name !== 'string' || name.length === 0 || name.length > TIMEZONE_MAX_LENGTH || !namePattern.test(name)) return null;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

export type TimezoneState = { timezone: string };
export type TimezoneCommand = { type: 'SetCompanyTimezone'; timezone: string; by: string | null; now: string };

export const timezoneDecider: Decider<TimezoneCommand, CompanyTimezoneEvent, TimezoneState> = {
  initialState: { timezone: DEFAULT_TIMEZONE },
  evolve(state, event) {
    // The company stream also carries registration, pipeline and LLM configuration events.
    return event.type === 'CompanyTimezoneSet' ? { timezone: event.data.timezone } : state;
  },
  decide(command, state) {
    const timezone = canonicalTimezone(command.timezone);
    if (!timezone) throw new DomainError('VALIDATION_ERROR', `timezone: ${JSON.stringify(String(command.timezone).slice(0, 80))} is not an IANA timezone name (e.g. Europe/Berlin)`);
    if (timezone === state.timezone) return [];
    return [{ type: 'CompanyTimezoneSet', data: { timezone, previousTimezone: state.timezone, by: command.by, at: command.now } }];
  },
};
