// Internal notes and in-app notifications (the bell).
import { query, request } from './client.js';
import type { Body, Reply, inAppNotifications, notes } from './serverTypes.js';

export type InAppNotification = Reply<typeof inAppNotifications.listInAppNotificationsSchema>['notifications'][number];

/** `idempotencyKey`: the same for every attempt of one note, so a retry after a lost answer records it once. */
export const addNote = (conversationId: string, text: string, idempotencyKey: string) =>
  request<Reply<typeof notes.addNoteSchema, 201>>('POST', `/api/conversations/${encodeURIComponent(conversationId)}/notes`, { text } satisfies Body<typeof notes.addNoteSchema>, { idempotencyKey });

export const listMyNotifications = (o: { unread?: boolean; limit?: number } = {}) =>
  request<Reply<typeof inAppNotifications.listInAppNotificationsSchema>>('GET', `/api/me/notifications/feed${query({ unread: o.unread ? 'true' : undefined, limit: o.limit ?? 20 })}`);

export const markNotificationsRead = (ids: string[]) =>
  request<Reply<typeof inAppNotifications.markInAppNotificationsReadSchema>>('POST', '/api/me/notifications/read', { ids } satisfies Body<typeof inAppNotifications.markInAppNotificationsReadSchema>);

export const getNoteSharing = async () => (await request<Reply<typeof notes.getNoteSharingSchema>>('GET', '/api/settings/notes')).notes;
export const setNoteSharing = async (shareWithAi: boolean) => (await request<Reply<typeof notes.setNoteSharingSchema>>('PUT', '/api/settings/notes', { shareWithAi })).notes;
