import type { FindQuery, Page, ReadStore } from '../../ports/readStore.js';
import { NOTIFICATIONS, type NotificationDoc } from './notificationsProjection.js';

type Reader = { companyId: string; userId: string };

/** The teammate's own notifications (only unread ones when asked), newest first. */
export function listNotifications(readStore: ReadStore, reader: Reader, filter: { unread: boolean }, page: Pick<FindQuery, 'limit' | 'cursor'>): Promise<Page<NotificationDoc>> {
  return readStore.find<NotificationDoc>(NOTIFICATIONS, {
    where: { companyId: reader.companyId, userId: reader.userId, ...(filter.unread ? { read: false } : {}) },
    orderBy: [{ field: 'seq', direction: 'desc' }],
    limit: page.limit,
    cursor: page.cursor,
  });
}

/** How many of the teammate's notifications are unread. */
export const countUnreadNotifications = (readStore: ReadStore, reader: Reader) => readStore.count(NOTIFICATIONS, { companyId: reader.companyId, userId: reader.userId, read: false });

/** Which of `ids` are the teammate's own notifications (another teammate's or company's read as missing). */
export async function ownNotificationIds(readStore: ReadStore, reader: Reader, ids: readonly string[]): Promise<string[]> {
  const docs = await Promise.all(ids.map((id) => readStore.get<NotificationDoc>(NOTIFICATIONS, id)));
  return docs.filter((d): d is NotificationDoc => d !== null && d.companyId === reader.companyId && d.userId === reader.userId).map((d) => d.id);
}
