import type { Decider } from '../../decider.js';
import { DomainError } from '../../errors.js';
import { TIMEZONE_MAX_LENGTH, type CompanyTimezoneEvent } from './events.js';
import { evolveTimezone, initialTimezoneState, type TimezoneState } from './state.js';

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

export type TimezoneCommand = { type: 'SetCompanyTimezone'; timezone: string; by: string | null; now: string };

export const timezoneDecider: Decider<TimezoneCommand, CompanyTimezoneEvent, TimezoneState> = {
  initialState: initialTimezoneState,
  evolve: evolveTimezone,
  decide(command, state) {
    const timezone = canonicalTimezone(command.timezone);
    if (!timezone) throw new DomainError('VALIDATION_ERROR', `timezone: ${JSON.stringify(String(command.timezone).slice(0, 80))} is not an IANA timezone name (e.g. Europe/Berlin)`);
    if (timezone === state.timezone) return [];
    return [{ type: 'CompanyTimezoneSet', data: { timezone, previousTimezone: state.timezone, by: command.by, at: command.now } }];
  },
};
