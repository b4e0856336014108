import { DEFAULT_NOTIFICATION_PREFERENCES, type NotificationPreferenceEvent, type NotificationPreferences } from './events.js';

/** A teammate's notification choices; the defaults until they choose. */
export type NotificationPreferencesState = NotificationPreferences & { chosen: boolean };

export const initialNotificationPreferencesState: NotificationPreferencesState = { ...DEFAULT_NOTIFICATION_PREFERENCES, chosen: false };

export function evolveNotificationPreferences(state: NotificationPreferencesState, event: NotificationPreferenceEvent): NotificationPreferencesState {
  switch (event.type) {
    case 'NotificationPreferencesSet': {
      const { assigned, handoffWaiting, handoffWaitingMinutes } = event.data;
      return { assigned, handoffWaiting, handoffWaitingMinutes, chosen: true };
    }
  }
}
