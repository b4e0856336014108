// Every date and number the dashboard shows is formatted here, in the UI's own language: the text around them is
// English (lib/messages.ts), so "Montag, 3. März" next to "Last message" would read as a mistake. Translating the
// UI means changing UI_LOCALE together with the messages, never mixing in the browser's locale.
export const UI_LOCALE = 'en';

const dateTime = new Intl.DateTimeFormat(UI_LOCALE, { dateStyle: 'medium', timeStyle: 'short' });
const dateTimeLong = new Intl.DateTimeFormat(UI_LOCALE, { dateStyle: 'full', timeStyle: 'long' });
const dateOnly = new Intl.DateTimeFormat(UI_LOCALE, { dateStyle: 'medium' });
const timeOnly = new Intl.DateTimeFormat(UI_LOCALE, { timeStyle: 'short' });
const relative = new Intl.RelativeTimeFormat(UI_LOCALE, { numeric: 'auto' });
const integer = new Intl.NumberFormat(UI_LOCALE, { maximumFractionDigits: 0 });

/** A count or other whole number: "12,345". */
export function formatNumber(value: number | bigint | null | undefined, fallback = '—'): string {
  return value === null || value === undefined ? fallback : integer.format(value);
}

/** A count and its noun, singular for exactly one: "1 message", "2 messages", "1,204 conversations". */
export function countOf(count: number, singular: string, plural = `${singular}s`): string {
  return `${integer.format(count)} ${count === 1 ? singular : plural}`;
}

/**
 * The labels of a count axis: a whole number is labelled, anything between is left blank. Rounded instead, the
 * splits 0, 0.5, 1, 1.5, 2 read "0, 1, 1, 2, 2", a label standing where its value is not.
 */
export function wholeNumberLabels(splits: number[], format: (v: number) => string): string[] {
  return splits.map((v) => (Number.isInteger(v) ? format(v) : ''));
}

function toDate(iso: string | null | undefined): Date | null {
  if (!iso) return null;
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? null : date;
}

export function formatDateTime(iso: string | null | undefined, fallback = '—'): string {
  const date = toDate(iso);
  return date ? dateTime.format(date) : fallback;
}

/**
 * formatDateTime's text as its date and its time ("Nov 26, 2026," and "9:50 AM"), so a narrow cell can put the time
 * under the date instead of breaking inside either; null when the locale joins them differently.
 */
export function formatDateTimeParts(iso: string | null | undefined): [string, string] | null {
  const date = toDate(iso);
  if (!date) return null;
  const day = `${dateOnly.format(date)},`;
  const time = timeOnly.format(date);
  return dateTime.format(date) === `${day} ${time}` ? [day, time] : null;
}

export function formatDateTimeLong(iso: string | null | undefined): string {
  const date = toDate(iso);
  return date ? dateTimeLong.format(date) : '';
}

export function formatDate(iso: string | null | undefined, fallback = '—'): string {
  const date = toDate(iso);
  return date ? dateOnly.format(date) : fallback;
}

/** Time today, otherwise date and time. */
export function formatShort(iso: string | null | undefined, fallback = '—'): string {
  const date = toDate(iso);
  if (!date) return fallback;
  const now = new Date();
  return date.toDateString() === now.toDateString() ? timeOnly.format(date) : dateTime.format(date);
}

export function formatRelative(iso: string | null | undefined, fallback = '—'): string {
  const date = toDate(iso);
  if (!date) return fallback;
  const seconds = Math.round((date.getTime() - Date.now()) / 1000);
  const abs = Math.abs(seconds);
  if (abs < 45) return 'just now';
  if (abs < 3600) return relative.format(Math.round(seconds / 60), 'minute');
  if (abs < 86400) return relative.format(Math.round(seconds / 3600), 'hour');
  if (abs < 86400 * 7) return relative.format(Math.round(seconds / 86400), 'day');
  return dateOnly.format(date);
}

/**
 * Integer micro-dollars as dollars: "$5.00", "-$0.25". Amounts below a cent keep their
 * significant digits ("-$0.00042") so tiny LLM charges don't read as "$0.00".
 */
export function formatMicros(micros: number | string | null | undefined, options: { sign?: boolean } = {}): string {
  let value: bigint;
  try {
    value = BigInt(typeof micros === 'number' ? Math.trunc(micros) : String(micros ?? '0'));
  } catch {
    return '—';
  }
  const negative = value < 0n;
  const abs = negative ? -value : value;
  const dollars = abs / 1_000_000n;
  const fraction = (abs % 1_000_000n).toString().padStart(6, '0');
  // Keep at least 2 decimals, more only when they carry a non-zero digit.
  const decimals = fraction.replace(/0+$/, '').length <= 2 ? fraction.slice(0, 2) : fraction.replace(/0+$/, '');
  const body = `$${integer.format(dollars)}.${decimals}`;
  if (negative) return `-${body}`;
  return options.sign && abs > 0n ? `+${body}` : body;
}

export function humanize(value: string): string {
  const spaced = String(value ?? '')
    .replace(/[_-]+/g, ' ')
    .trim()
    .replace(/\b(llm|ai|api|url|kb)\b/gi, (word) => word.toUpperCase());
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
}

/** Why an AI session is paused, in words. */
export function describePausedReason(reason: string | null | undefined): string {
  switch (reason) {
    case undefined:
    case null:
    case '':
      return 'Paused';
    case 'credits_exhausted':
      return 'Paused: out of credits';
    case 'api':
    case 'operator':
    case 'manual':
    case 'paused_by_operator':
    case 'user':
      return 'Paused by an operator';
    case 'human_takeover':
    case 'operator_reply':
    case 'operator_message':
      return 'Paused: a human operator took over';
    case 'dialog_transferred':
    case 'transferred':
    case 'transfer':
      return 'Paused: transferred to a human operator';
    case 'llm_error':
      return 'Paused: the AI provider failed';
    case 'handoff':
      return 'Paused: handed off to a human';
    default:
      return `Paused: ${humanize(reason).toLowerCase()}`;
  }
}

// A calendar day the API names as `YYYY-MM-DD` (already a day in the company's timezone): formatted as that
// day, never shifted by the browser's own timezone.
const calendarDay = new Intl.DateTimeFormat(UI_LOCALE, { month: 'short', day: 'numeric', timeZone: 'UTC' });
const calendarDayLong = new Intl.DateTimeFormat(UI_LOCALE, { dateStyle: 'medium', timeZone: 'UTC' });

/** "Mar 10" for "2025-03-10" (`long`: "Mar 10, 2025"). */
export function formatDay(date: string, options: { long?: boolean } = {}): string {
  const ms = Date.parse(`${date}T00:00:00.000Z`);
  if (Number.isNaN(ms)) return date;
  return (options.long ? calendarDayLong : calendarDay).format(ms);
}

const decimal1 = new Intl.NumberFormat(UI_LOCALE, { maximumFractionDigits: 1 });

/** A duration in milliseconds as a short figure: "850 ms", "4.2 s", "3.5 min", "2.1 h", "1.5 d". */
export function formatDuration(ms: number | null | undefined, fallback = '—'): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return fallback;
  if (ms < 1000) return `${integer.format(ms)} ms`;
  if (ms < 60_000) return `${decimal1.format(ms / 1000)} s`;
  if (ms < 3_600_000) return `${decimal1.format(ms / 60_000)} min`;
  if (ms < 86_400_000) return `${decimal1.format(ms / 3_600_000)} h`;
  return `${decimal1.format(ms / 86_400_000)} d`;
}

/** A share as a percentage: "42%"; the fallback when the whole is zero. */
export function formatPercent(part: number, whole: number, fallback = '—'): string {
  return whole > 0 ? `${integer.format((part / whole) * 100)}%` : fallback;
}
