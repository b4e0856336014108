/**
 * Calendar days in a timezone. Pure (Intl is part of the language); formatters are cached per timezone so
 * bucketing an event costs one format call.
 */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timezone: string): Intl.DateTimeFormat {
  let f = formatters.get(timezone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: timezone, year: 'numeric', month: '2-digit', day: '2-digit', hourCycle: 'h23' });
    // Bounded by the number of IANA zones (a few hundred); validated names only reach here.
    formatters.set(timezone, f);
  }
  return f;
}

/** The `YYYY-MM-DD` day an instant falls on in `timezone`. */
export function localDate(iso: string, timezone: string): string {
  let year = '';
  let month = '';
  let day = '';
  for (const part of formatterFor(timezone).formatToParts(new Date(iso))) {
    if (part.type === 'year') year = part.value;
    else if (part.type === 'month') month = part.value;
    else if (part.type === 'day') day = part.value;
  }
  return `${year.padStart(4, '0')}-${month}-${day}`;
}

const datePattern = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Whether `value` is a real calendar date written `YYYY-MM-DD` (2025-02-30 is not). */
export function isCalendarDate(value: string): boolean {
  const m = datePattern.exec(value);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.toISOString().slice(0, 10) === value;
}

const DAY_MS = 86_400_000;
const dayNumber = (date: string) => Date.parse(`${date}T00:00:00.000Z`) / DAY_MS;

/** Days from `from` to `to`, both included (1 when equal; ≤ 0 when `to` is before `from`). */
export function daysBetween(from: string, to: string): number {
  return dayNumber(to) - dayNumber(from) + 1;
}

/** Every date from `from` to `to`, both included. */
export function datesInRange(from: string, to: string): string[] {
  const out: string[] = [];
  for (let n = dayNumber(from), end = dayNumber(to); n <= end; n++) out.push(new Date(n * DAY_MS).toISOString().slice(0, 10));
  return out;
}

/** `date` moved by `days` (negative: earlier). */
export function addDays(date: string, days: number): string {
  return new Date((dayNumber(date) + days) * DAY_MS).toISOString().slice(0, 10);
}

/** The `YYYY-MM` months the range touches, in order. */
export function monthsInRange(from: string, to: string): string[] {
  const out: string[] = [];
  let y = Number(from.slice(0, 4));
  let m = Number(from.slice(5, 7));
  const endKey = to.slice(0, 7);
  for (;;) {
    const key = `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}`;
    out.push(key);
    if (key >= endKey) return out;
    m += 1;
    if (m > 12) {
      m = 1;
      y += 1;
    }
  }
}
