import { describe, expect, it } from 'vitest';
import { canonicalTimezone, timezoneDecider } from '../../../../../src/domain/company/timezone/decider.js';
import type { CompanyTimezoneEvent } from '../../../../../src/domain/company/timezone/events.js';
import { DEFAULT_TIMEZONE } from '../../../../../src/domain/company/timezone/state.js';
import { specFor } from '../../../../support/gwt.js';

const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-02T00:00:00.000Z';
const timezone = specFor(timezoneDecider);
const setTo = (name: string, now = T1) => ({ type: 'SetCompanyTimezone', timezone: name, by: 'user:42', now }) as const;
const berlin: CompanyTimezoneEvent = { type: 'CompanyTimezoneSet', data: { timezone: 'Europe/Berlin', previousTimezone: 'UTC', by: 'user:42', at: T0 } };

describe('company timezone decider', () => {
  it('a company without a timezone set uses UTC', () => {
    expect(timezone.given([]).state).toEqual({ timezone: DEFAULT_TIMEZONE });
    expect(DEFAULT_TIMEZONE).toBe('UTC');
  });

  it('sets an IANA timezone, naming the one it replaces', () => {
    const state = timezone.given([]).when(setTo('Europe/Berlin', T0)).then([berlin]);
    expect(state).toEqual({ timezone: 'Europe/Berlin' });
    timezone.given([berlin]).when(setTo('America/New_York')).then([
      { type: 'CompanyTimezoneSet', data: { timezone: 'America/New_York', previousTimezone: 'Europe/Berlin', by: 'user:42', at: T1 } },
    ]);
  });

  it('setting the timezone in force again records nothing', () => {
    timezone.given([berlin]).when(setTo('Europe/Berlin')).then([]);
    timezone.given([]).when(setTo('UTC')).then([]);
  });

  it('stores the canonical spelling', () => {
    expect(canonicalTimezone('europe/berlin')).toBe('Europe/Berlin');
    timezone.given([]).when(setTo('europe/berlin', T0)).then([berlin]);
  });

  it('refuses what names no IANA timezone: unknown names, offsets, empty or overlong values', () => {
    for (const bad of ['Mars/Olympus_Mons', '+02:00', '', 'x'.repeat(65)]) {
      expect(canonicalTimezone(bad), bad).toBeNull();
      timezone.given([]).when(setTo(bad)).thenThrows('VALIDATION_ERROR');
    }
  });

  it('ignores the other events of the company stream', () => {
    const registered = { type: 'CompanyRegistered', data: {} } as unknown as CompanyTimezoneEvent;
    expect(timezone.given([berlin, registered]).state).toEqual({ timezone: 'Europe/Berlin' });
  });
});
