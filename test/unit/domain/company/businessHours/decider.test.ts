import { describe, expect, it } from 'vitest';
import { businessHoursDecider } from '../../../../../src/domain/company/businessHours/decider.js';
import type { BusinessHours, BusinessHoursEvent } from '../../../../../src/domain/company/businessHours/events.js';
import type { CompanyTimezoneEvent } from '../../../../../src/domain/company/timezone/events.js';
import { specFor } from '../../../../support/gwt.js';

const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-02T00:00:00.000Z';
const spec = specFor(businessHoursDecider);
const open = [{ from: '09:00', to: '17:00' }];
const hours = (overrides: Partial<BusinessHours> = {}): BusinessHours => ({
  enabled: true,
  weekly: { monday: open, tuesday: open, wednesday: open, thursday: open, friday: open, saturday: [], sunday: [] },
  holidays: [],
  ...overrides,
});
const set = (h: BusinessHours, now = T1) => ({ type: 'SetBusinessHours', hours: h, by: 'user:42', now }) as const;
const stored = (h: BusinessHours, at = T0): BusinessHoursEvent => ({ type: 'BusinessHoursSet', data: { ...h, by: 'user:42', at } });
const berlin: CompanyTimezoneEvent = { type: 'CompanyTimezoneSet', data: { timezone: 'Europe/Berlin', previousTimezone: 'UTC', by: 'user:42', at: T0 } };

describe('business hours decider', () => {
  it('given no schedule, then none is in force and the timezone is UTC', () => {
    expect(spec.given([]).state).toEqual({ hours: null, timezone: 'UTC' });
  });

  it('given the company timezone set, when hours are set, then they are read in that timezone', () => {
    const state = spec.given([berlin]).when(set(hours(), T0)).then([stored(hours())]);
    expect(state).toEqual({ hours: hours(), timezone: 'Europe/Berlin' });
  });

  it('stores openings in order and holidays by date', () => {
    const messy = hours({ weekly: { ...hours().weekly, monday: [{ from: '13:00', to: '17:00' }, { from: '08:00', to: '12:00' }] }, holidays: [{ date: '2026-12-26' }, { date: '2026-12-25', name: 'Christmas' }] });
    spec.given([]).when(set(messy, T0)).then([
      stored(hours({ weekly: { ...hours().weekly, monday: [{ from: '08:00', to: '12:00' }, { from: '13:00', to: '17:00' }] }, holidays: [{ date: '2026-12-25', name: 'Christmas' }, { date: '2026-12-26' }] })),
    ]);
  });

  it('given a schedule, when the same schedule is set again, then nothing is recorded', () => {
    spec.given([stored(hours())]).when(set(hours())).then([]);
  });

  it('given a schedule, when switched off, then that is recorded (and the hours are kept)', () => {
    spec.given([stored(hours())]).when(set(hours({ enabled: false }))).then([stored(hours({ enabled: false }), T1)]);
  });

  it('refuses an opening that closes before it opens, overlapping openings, a holiday listed twice, and enabled hours that never open', () => {
    const monday = (m: { from: string; to: string }[]) => hours({ weekly: { ...hours().weekly, monday: m } });
    spec.given([]).when(set(monday([{ from: '17:00', to: '09:00' }]))).thenThrows('VALIDATION_ERROR');
    spec.given([]).when(set(monday([{ from: '09:00', to: '09:00' }]))).thenThrows('VALIDATION_ERROR');
    spec.given([]).when(set(monday([{ from: '09:00', to: '12:00' }, { from: '11:00', to: '14:00' }]))).thenThrows('VALIDATION_ERROR');
    spec.given([]).when(set(hours({ holidays: [{ date: '2026-12-25' }, { date: '2026-12-25', name: 'again' }] }))).thenThrows('VALIDATION_ERROR');
    const closed = hours({ weekly: { monday: [], tuesday: [], wednesday: [], thursday: [], friday: [], saturday: [], sunday: [] } });
    spec.given([]).when(set(closed)).thenThrows('VALIDATION_ERROR');
    // Switched off, an empty week is fine: it is never consulted.
    expect(spec.given([]).when(set({ ...closed, enabled: false })).then([stored({ ...closed, enabled: false }, T1)])).toMatchObject({ hours: { enabled: false } });
  });
});
