import type { Decider } from '../../decider.js';
import { DomainError } from '../../errors.js';
import { notificationPreferences, type NotificationPreferenceEvent, type NotificationPreferences } from './events.js';
import { evolveNotificationPreferences, initialNotificationPreferencesState, type NotificationPreferencesState } from './state.js';

/** Only the teammate themself sets their preferences: the route passes the caller's own id. */
export type NotificationPreferencesCommand = { type: 'SetNotificationPreferences'; userId: string; preferences: Partial<NotificationPreferences>; now: string };

export const notificationPreferencesDecider: Decider<NotificationPreferencesCommand, NotificationPreferenceEvent, NotificationPreferencesState> = {
  initialState: initialNotificationPreferencesState,
  evolve: evolveNotificationPreferences,
  decide(command, state) {
    const { chosen: _chosen, ...current } = state;
    const parsed = notificationPreferences.safeParse({ ...current, ...command.preferences });
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new DomainError('VALIDATION_ERROR', `${issue?.path.map(String).join('.') || 'preferences'}: ${issue?.message ?? 'invalid'}`);
    }
    const next = parsed.data;
    // Saving the same choices again records nothing (a double click, a form saved unchanged).
    if (state.chosen && next.assigned === current.assigned && next.handoffWaiting === current.handoffWaiting && next.handoffWaitingMinutes === current.handoffWaitingMinutes) return [];
    return [{ type: 'NotificationPreferencesSet', data: { userId: command.userId, ...next, at: command.now } }];
  },
};

const PREFIX = 'notifyprefs-';
export const notificationPreferencesStream = (userId: string) => `${PREFIX}${userId}`;
