import type { Decider } from '../../decider.js';
import { DomainError } from '../../errors.js';
import type { CompanyTimezoneEvent } from '../timezone/events.js';
import { WEEKDAYS, type BusinessHours, type BusinessHoursEvent } from './events.js';
import { minutesOf } from './schedule.js';
import { evolveBusinessHours, initialBusinessHoursState, type BusinessHoursState } from './state.js';

export type BusinessHoursCommand = { type: 'SetBusinessHours'; hours: BusinessHours; by: string | null; now: string };

const invalid = (message: string) => new DomainError('VALIDATION_ERROR', message);

/** What the schemas cannot say: openings that close after they open and do not overlap, one entry per holiday. */
function checked(hours: BusinessHours): BusinessHours {
  const weekly = { ...hours.weekly };
  for (const day of WEEKDAYS) {
    const openings = [...hours.weekly[day]].sort((a, b) => minutesOf(a.from) - minutesOf(b.from));
    openings.forEach((o, i) => {
      if (minutesOf(o.to) <= minutesOf(o.from)) throw invalid(`weekly.${day}: ${o.from}–${o.to} closes before it opens (an opening ends by 24:00 of its day)`);
      const before = openings[i - 1];
      if (before && minutesOf(o.from) < minutesOf(before.to)) throw invalid(`weekly.${day}: ${before.from}–${before.to} and ${o.from}–${o.to} overlap`);
    });
    weekly[day] = openings;
  }
  // An enabled schedule that never opens would promise customers a return that never comes.
  if (hours.enabled && WEEKDAYS.every((d) => weekly[d].length === 0)) throw invalid('weekly: business hours need at least one opening a week (or enabled: false)');
  const dates = new Set<string>();
  for (const h of hours.holidays) {
    if (dates.has(h.date)) throw invalid(`holidays: ${h.date} is listed twice`);
    dates.add(h.date);
  }
  const holidays = [...hours.holidays].sort((a, b) => a.date.localeCompare(b.date));
  return { enabled: hours.enabled, weekly, holidays };
}

export const businessHoursDecider: Decider<BusinessHoursCommand, BusinessHoursEvent | CompanyTimezoneEvent, BusinessHoursState> = {
  initialState: initialBusinessHoursState,
  evolve: evolveBusinessHours,
  decide(command, state) {
    const hours = checked(command.hours);
    // The same schedule again records nothing: saving an unchanged form is harmless.
    if (state.hours && JSON.stringify(state.hours) === JSON.stringify(hours)) return [];
    return [{ type: 'BusinessHoursSet', data: { ...hours, by: command.by, at: command.now } }];
  },
};
