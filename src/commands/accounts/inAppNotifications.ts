import { randomUUID } from 'node:crypto';
import { notificationReadsStream, type InAppNotificationEvent } from '../../domain/accounts/notifications/inApp/events.js';
import type { CommandDeps } from '../deps.js';

/**
 * Records that the teammate read these in-app notifications (ids the caller checked are their own). Appended
 * without a decision: reading twice is harmless, the read model ignores what is read already.
 */
export async function markNotificationsRead(deps: CommandDeps, actor: { companyId: string; userId: string }, notificationIds: string[]) {
  const data: InAppNotificationEvent['data'] = { userId: actor.userId, companyId: actor.companyId, notificationIds, at: deps.clock.now().toISOString() };
  return deps.eventStore.append(notificationReadsStream(actor.userId), [{ id: randomUUID(), type: 'NotificationsRead', data, metadata: { companyId: actor.companyId, actor: `user:${actor.userId}` } }], 'any');
}
