import { describe, expect, it } from 'vitest';
import type { BusinessHours } from '../../../../../src/domain/company/businessHours/events.js';
import { afterHoursSentence, describeReturn, instantOf, isOpenAt, nextOpening } from '../../../../../src/domain/company/businessHours/schedule.js';

const nineToFive = [{ from: '09:00', to: '17:00' }];
const weekdays = (openings = nineToFive): BusinessHours => ({
  enabled: true,
  weekly: { monday: openings, tuesday: openings, wednesday: openings, thursday: openings, friday: openings, saturday: [], sunday: [] },
  holidays: [],
});
const at = (iso: string) => new Date(iso);
const next = (hours: BusinessHours | null, tz: string, iso: string) => nextOpening(hours, tz, at(iso))?.toISOString() ?? null;

describe('business hours: open at an instant', () => {
  it('given no business hours, or hours switched off, when asked at any time, then open', () => {
    expect(isOpenAt(null, 'Europe/Berlin', at('2026-03-29T03:00:00Z'))).toBe(true);
    expect(isOpenAt({ ...weekdays(), enabled: false }, 'Europe/Berlin', at('2026-03-28T23:00:00Z'))).toBe(true);
    expect(next(null, 'UTC', '2026-03-28T23:00:00.000Z')).toBe('2026-03-28T23:00:00.000Z');
  });

  it('given 09:00–17:00 on weekdays in Berlin, then the opening includes 09:00 and excludes 17:00, local time', () => {
    const hours = weekdays();
    // Winter: UTC+1.
    expect(isOpenAt(hours, 'Europe/Berlin', at('2026-01-05T07:59:59Z'))).toBe(false);
    expect(isOpenAt(hours, 'Europe/Berlin', at('2026-01-05T08:00:00Z'))).toBe(true);
    expect(isOpenAt(hours, 'Europe/Berlin', at('2026-01-05T15:59:00Z'))).toBe(true);
    expect(isOpenAt(hours, 'Europe/Berlin', at('2026-01-05T16:00:00Z'))).toBe(false);
    // Saturday
    expect(isOpenAt(hours, 'Europe/Berlin', at('2026-01-10T10:00:00Z'))).toBe(false);
    // The same instant is Monday 09:30 in Berlin and Monday 03:30 in New York.
    expect(isOpenAt(hours, 'America/New_York', at('2026-01-05T08:30:00Z'))).toBe(false);
  });

  it('given a holiday, then its whole local day is closed, and the next opening skips it', () => {
    const hours = { ...weekdays(), holidays: [{ date: '2026-12-25', name: 'Christmas' }] };
    expect(isOpenAt(hours, 'Europe/Berlin', at('2026-12-25T10:00:00Z'))).toBe(false);
    // Thursday 24 December 18:00 in Berlin: Friday is a holiday, so Monday 28 December 09:00 (UTC+1).
    expect(next(hours, 'Europe/Berlin', '2026-12-24T17:00:00Z')).toBe('2026-12-28T08:00:00.000Z');
  });

  it('given an opening that ends at 24:00 and one that starts at 00:00, then a night shift is open across midnight', () => {
    const hours = { ...weekdays([]), weekly: { ...weekdays([]).weekly, friday: [{ from: '22:00', to: '24:00' }], saturday: [{ from: '00:00', to: '06:00' }] } };
    expect(isOpenAt(hours, 'UTC', at('2026-01-09T23:59:00Z'))).toBe(true);
    expect(isOpenAt(hours, 'UTC', at('2026-01-10T00:00:00Z'))).toBe(true);
    expect(isOpenAt(hours, 'UTC', at('2026-01-10T06:00:00Z'))).toBe(false);
    expect(next(hours, 'UTC', '2026-01-10T07:00:00Z')).toBe('2026-01-16T22:00:00.000Z');
  });
});

describe('business hours: the next opening across daylight-saving changes', () => {
  it('given Friday evening before clocks go forward in Berlin (29 March 2026), then Monday 09:00 is 07:00 UTC, not 08:00', () => {
    expect(next(weekdays(), 'Europe/Berlin', '2026-03-27T17:00:00Z')).toBe('2026-03-30T07:00:00.000Z');
  });

  it('given Friday evening before clocks go back in Berlin (25 October 2026), then Monday 09:00 is 08:00 UTC', () => {
    expect(next(weekdays(), 'Europe/Berlin', '2026-10-23T16:00:00Z')).toBe('2026-10-26T08:00:00.000Z');
  });

  it('given New York, whose clocks change on other dates (8 March, 1 November 2026), then the offset follows New York', () => {
    // Friday 6 March 18:00 EST → Monday 9 March 09:00 EDT (UTC-4).
    expect(next(weekdays(), 'America/New_York', '2026-03-06T23:00:00Z')).toBe('2026-03-09T13:00:00.000Z');
    // Friday 30 October 18:00 EDT → Monday 2 November 09:00 EST (UTC-5).
    expect(next(weekdays(), 'America/New_York', '2026-10-30T22:00:00Z')).toBe('2026-11-02T14:00:00.000Z');
  });

  it('given an opening in the hour clocks skip, then it opens at the same wall time after the change', () => {
    // Berlin skips 02:00–03:00 on 29 March 2026: "02:30" means 03:30 CEST, 01:30 UTC.
    expect(new Date(instantOf('2026-03-29', 150, 'Europe/Berlin')).toISOString()).toBe('2026-03-29T01:30:00.000Z');
    const hours: BusinessHours = { ...weekdays([]), weekly: { ...weekdays([]).weekly, sunday: [{ from: '02:30', to: '05:00' }] } };
    expect(next(hours, 'Europe/Berlin', '2026-03-28T20:00:00Z')).toBe('2026-03-29T01:30:00.000Z');
  });

  it('given an opening in the hour clocks repeat, then it opens the first time that wall time comes', () => {
    // Berlin repeats 02:00–03:00 on 25 October 2026: "02:30" is first reached at 00:30 UTC (CEST).
    expect(new Date(instantOf('2026-10-25', 150, 'Europe/Berlin')).toISOString()).toBe('2026-10-25T00:30:00.000Z');
    const hours: BusinessHours = { ...weekdays([]), weekly: { ...weekdays([]).weekly, sunday: [{ from: '02:30', to: '05:00' }] } };
    expect(next(hours, 'Europe/Berlin', '2026-10-24T20:00:00Z')).toBe('2026-10-25T00:30:00.000Z');
    expect(isOpenAt(hours, 'Europe/Berlin', at('2026-10-25T01:45:00Z'))).toBe(true); // 02:45 CET, the second time round
  });

  it('given a time zone that is open at the instant asked, then the next opening is that instant', () => {
    expect(next(weekdays(), 'Asia/Tokyo', '2026-01-05T01:00:00.000Z')).toBe('2026-01-05T01:00:00.000Z');
  });

  it('given holidays on the only opening day, then the next opening skips them, and none is found past the look-ahead', () => {
    const hours: BusinessHours = { ...weekdays([]), weekly: { ...weekdays([]).weekly, monday: nineToFive } };
    const mondays = (n: number) => Array.from({ length: n }, (_, i) => ({ date: new Date(Date.UTC(2026, 0, 5 + 7 * i)).toISOString().slice(0, 10) }));
    expect(next({ ...hours, holidays: mondays(10) }, 'UTC', '2026-01-04T00:00:00Z')).toBe('2026-03-16T09:00:00.000Z');
    expect(next({ ...hours, holidays: mondays(60) }, 'UTC', '2026-01-04T00:00:00Z')).toBeNull();
  });
});

describe('business hours: telling the customer when people are back', () => {
  it('describes the return in the company timezone, the same on every runtime', () => {
    expect(describeReturn(at('2026-03-30T07:00:00Z'), 'Europe/Berlin')).toBe('Monday 30 March at 09:00 (Europe/Berlin)');
    expect(afterHoursSentence('We are back {{back}}. Thanks! ({{back}})', at('2026-11-02T14:00:00Z'), 'America/New_York')).toBe(
      'We are back Monday 2 November at 09:00 (America/New_York). Thanks! (Monday 2 November at 09:00 (America/New_York))',
    );
  });
});
