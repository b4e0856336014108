import { addDays } from '../../localDay.js';
import { WEEKDAYS, type BusinessHours, type Weekday } from './events.js';

/**
 * Is the company open at an instant, and when does it open next: pure, the instant is always passed in (the
 * caller's clock), and time zones come from Intl, so daylight-saving changes follow the IANA rules.
 *
 * An opening belongs to one local day (`from` to `to`, `to` at most 24:00); a night shift is two openings,
 * one each side of midnight. A local time that does not exist (the hour skipped when clocks go forward)
 * means the same wall time after the change, one hour later; one that happens twice (clocks go back) means
 * the first of the two. A holiday closes its whole local day.
 */

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
/** How far ahead the next opening is looked for: past any holiday list (at most 100 days closed). */
const LOOKAHEAD_DAYS = 400;

export const minutesOf = (time: string): number => Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });
    // Bounded by the number of IANA zones; only validated names reach here.
    formatters.set(timeZone, f);
  }
  return f;
}

interface WallClock {
  /** `YYYY-MM-DD` */
  date: string;
  /** Minutes since local midnight. */
  minutes: number;
  /** The wall time read as if it were UTC, in ms (for offsets). */
  wallMs: number;
}

function wallClockAt(ms: number, timeZone: string): WallClock {
  const p: Record<string, string> = {};
  for (const part of formatterFor(timeZone).formatToParts(new Date(ms))) p[part.type] = part.value;
  const [y, mo, d, h, mi, s] = [p.year, p.month, p.day, p.hour, p.minute, p.second].map(Number) as [number, number, number, number, number, number];
  const hour = h === 24 ? 0 : h;
  return {
    date: `${String(y).padStart(4, '0')}-${String(mo).padStart(2, '0')}-${String(d).padStart(2, '0')}`,
    minutes: hour * 60 + mi,
    wallMs: Date.UTC(y, mo - 1, d, hour, mi, s),
  };
}

/** The zone's offset from UTC at an instant, in ms (whole seconds). */
const offsetAt = (ms: number, timeZone: string) => wallClockAt(ms, timeZone).wallMs - Math.floor(ms / 1000) * 1000;

/** The instant a local wall time happens (see the module note for skipped and repeated times). */
export function instantOf(date: string, minutes: number, timeZone: string): number {
  const wall = Date.parse(`${date}T00:00:00.000Z`) + minutes * MINUTE_MS;
  // Zones change offset at most once a day: the offsets a day before and after bracket any change here.
  const before = wall - offsetAt(wall - DAY_MS, timeZone);
  const after = wall - offsetAt(wall + DAY_MS, timeZone);
  const fits = (t: number) => wallClockAt(t, timeZone).wallMs === wall;
  if (fits(before) && fits(after)) return Math.min(before, after);
  if (fits(before)) return before;
  if (fits(after)) return after;
  return before; // skipped: the wall time read with the offset before the change lands just after it
}

export const weekdayOf = (date: string): Weekday => WEEKDAYS[(new Date(`${date}T00:00:00.000Z`).getUTCDay() + 6) % 7]!;

const isHoliday = (hours: BusinessHours, date: string) => hours.holidays.some((h) => h.date === date);

/** Whether people are there at `at`. Without business hours (none set, or switched off) always. */
export function isOpenAt(hours: BusinessHours | null, timeZone: string, at: Date): boolean {
  if (!hours?.enabled) return true;
  const local = wallClockAt(at.getTime(), timeZone);
  if (isHoliday(hours, local.date)) return false;
  return hours.weekly[weekdayOf(local.date)].some((o) => minutesOf(o.from) <= local.minutes && local.minutes < minutesOf(o.to));
}

/**
 * The first instant from `at` on when people are there: `at` itself when open, null when the schedule opens
 * nowhere in the next LOOKAHEAD_DAYS (only a schedule of holidays could).
 */
export function nextOpening(hours: BusinessHours | null, timeZone: string, at: Date): Date | null {
  if (isOpenAt(hours, timeZone, at)) return at;
  const today = wallClockAt(at.getTime(), timeZone).date;
  for (let k = 0; k <= LOOKAHEAD_DAYS; k++) {
    const date = addDays(today, k);
    if (isHoliday(hours!, date)) continue;
    for (const opening of hours!.weekly[weekdayOf(date)]) {
      const start = instantOf(date, minutesOf(opening.from), timeZone);
      if (start > at.getTime() && isOpenAt(hours, timeZone, new Date(start))) return new Date(start);
    }
  }
  return null;
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const capitalised = (s: string) => s[0]!.toUpperCase() + s.slice(1);

/**
 * When people are back, as a customer reads it: "Monday 30 November at 09:00 (Europe/Berlin)". Written from
 * the parts, not a locale format, so it reads the same on every runtime.
 */
export function describeReturn(back: Date, timeZone: string): string {
  const local = wallClockAt(back.getTime(), timeZone);
  const [, month, day] = local.date.split('-').map(Number) as [number, number, number];
  const hh = String(Math.floor(local.minutes / 60)).padStart(2, '0');
  const mm = String(local.minutes % 60).padStart(2, '0');
  return `${capitalised(weekdayOf(local.date))} ${day} ${MONTHS[month - 1]} at ${hh}:${mm} (${timeZone})`;
}

/** The placeholder an agent's after-hours message carries for `describeReturn`. */
export const BACK_PLACEHOLDER = '{{back}}';

export const afterHoursSentence = (template: string, back: Date, timeZone: string) => template.split(BACK_PLACEHOLDER).join(describeReturn(back, timeZone));

/** Openings walked at most while counting business minutes: past any target a policy allows (90 days). */
const MAX_OPENINGS_WALKED = 2_000;

/**
 * The instant `minutes` business minutes after `from`: minutes count only while the company is open (without
 * business hours, or with them off, every minute counts). Null when the schedule does not open again in time
 * (only a schedule of holidays could). SLA targets are counted this way. Cost: one step per opening crossed.
 */
export function addBusinessMinutes(hours: BusinessHours | null, timeZone: string, from: Date, minutes: number): Date | null {
  if (!hours?.enabled) return new Date(from.getTime() + minutes * MINUTE_MS);
  let left = minutes * MINUTE_MS;
  let at: Date | null = from;
  for (let step = 0; step < MAX_OPENINGS_WALKED; step++) {
    at = nextOpening(hours, timeZone, at);
    if (!at) return null;
    const local = wallClockAt(at.getTime(), timeZone);
    const opening = hours.weekly[weekdayOf(local.date)].find((o) => minutesOf(o.from) <= local.minutes && local.minutes < minutesOf(o.to));
    // Open by isOpenAt, so an opening holds it; its end (24:00 is the next midnight) bounds this stretch.
    const end = opening ? instantOf(local.date, minutesOf(opening.to), timeZone) : at.getTime() + MINUTE_MS;
    const stretch = end - at.getTime();
    if (stretch <= 0) {
      at = new Date(at.getTime() + 1000);
      continue;
    }
    if (left <= stretch) return new Date(at.getTime() + left);
    left -= stretch;
    at = new Date(at.getTime() + stretch);
  }
  return null;
}
