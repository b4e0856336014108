import { describe, it } from 'vitest';
import { notificationPreferencesDecider } from '../../../../../src/domain/accounts/notifications/decider.js';
import { specFor } from '../../../../support/gwt.js';

const spec = specFor(notificationPreferencesDecider);
const ANN = 'a0a0a0a0-a0a0-40a0-80a0-a0a0a0a0a0a0';
const T = '2026-01-01T00:00:00.000Z';

describe('a teammate\'s notification preferences', () => {
  it('given none chosen, when they switch off assignment emails, then the defaults for the rest are recorded with it', () => {
    spec.given([]).when({ type: 'SetNotificationPreferences', userId: ANN, preferences: { assigned: false }, now: T }).then([
      { type: 'NotificationPreferencesSet', data: { userId: ANN, assigned: false, handoffWaiting: true, handoffWaitingMinutes: 15, at: T } },
    ]);
  });
  it('given chosen, when the same choices are saved again, then nothing is recorded', () => {
    spec.given([{ type: 'NotificationPreferencesSet', data: { userId: ANN, assigned: false, handoffWaiting: true, handoffWaitingMinutes: 15, at: T } }])
      .when({ type: 'SetNotificationPreferences', userId: ANN, preferences: { assigned: false }, now: T })
      .then([]);
  });
  it('a waiting time outside 1 to 1440 minutes is refused', () => {
    spec.given([]).when({ type: 'SetNotificationPreferences', userId: ANN, preferences: { handoffWaitingMinutes: 0 }, now: T }).thenThrows('VALIDATION_ERROR');
    spec.given([]).when({ type: 'SetNotificationPreferences', userId: ANN, preferences: { handoffWaitingMinutes: 1441 }, now: T }).thenThrows('VALIDATION_ERROR');
  });
});
