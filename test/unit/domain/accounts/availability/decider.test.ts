import { describe, expect, it } from 'vitest';
import { availabilityDecider, availabilityStream, userIdOfAvailabilityStream } from '../../../../../src/domain/accounts/availability/decider.js';
import type { AvailabilityEvent } from '../../../../../src/domain/accounts/availability/events.js';
import { specFor } from '../../../../support/gwt.js';

const USER = 'a0a0a0a0-a0a0-40a0-80a0-a0a0a0a0a0a0';
const CO = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc';
const T0 = '2026-01-01T09:00:00.000Z';
const T1 = '2026-01-01T12:00:00.000Z';
const spec = specFor(availabilityDecider);
const set = (availability: 'online' | 'away', now = T1) => ({ type: 'SetAvailability', userId: USER, companyId: CO, availability, now }) as const;
const away: AvailabilityEvent = { type: 'AvailabilitySet', data: { userId: USER, companyId: CO, availability: 'away', previous: 'online', at: T0 } };

describe('a teammate sets their availability', () => {
  it('given nothing said, a teammate is online', () => {
    expect(spec.given([]).state).toEqual({ availability: 'online' });
  });
  it('when they step away, AvailabilitySet names the new and the previous availability', () => {
    const state = spec.given([]).when(set('away', T0)).then([away]);
    expect(state).toEqual({ availability: 'away' });
    spec.given([away]).when(set('online')).then([{ type: 'AvailabilitySet', data: { userId: USER, companyId: CO, availability: 'online', previous: 'away', at: T1 } }]);
  });
  it('saying the same again records nothing', () => {
    spec.given([]).when(set('online')).then([]);
    spec.given([away]).when(set('away')).then([]);
  });
  it('one stream per teammate, named after them', () => {
    expect(availabilityStream(USER)).toBe(`availability-${USER}`);
    expect(userIdOfAvailabilityStream(availabilityStream(USER))).toBe(USER);
  });
});
