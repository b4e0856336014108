import { z } from 'zod';
import { inAppNotificationKind, MAX_MARKED_READ } from '../../domain/accounts/notifications/inApp/events.js';
import type { NotificationDoc } from '../../projections/notifications/notificationsProjection.js';
import { bearerSecurity as security, errorResponses, listQuery } from './schemas.js';

export const inAppNotificationSchema = z.object({
  id: z.string(),
  kind: inAppNotificationKind.describe('assigned: a conversation was assigned to you; mentioned: a note @mentions you; handoff_waiting: a conversation waits for a person (yours, or nobody\'s: owners and admins)'),
  conversationId: z.string(),
  customerName: z.string(),
  byUserId: z.string().nullable().describe('the teammate who assigned it or wrote the note; null when no person did (automatic assignment, a handoff)'),
  excerpt: z.string().nullable().describe('mentions: the opening of the note; null otherwise'),
  createdAt: z.string(),
  read: z.boolean(),
});

const tags = ['team'];

export const listInAppNotificationsSchema = {
  tags,
  security,
  summary: 'Your in-app notifications, newest first',
  querystring: listQuery.extend({ unread: z.enum(['true', 'false']).optional().describe('true: unread ones only') }),
  response: {
    200: z.object({ notifications: z.array(inAppNotificationSchema), unreadCount: z.number().int().min(0), nextCursor: z.string().nullable() }),
    ...errorResponses,
  },
};

export const markInAppNotificationsReadSchema = {
  tags,
  security,
  summary: 'Marks some of your in-app notifications read',
  description: 'Any id that is not one of your own notifications (another teammate\'s, another company\'s, unknown) is 404 and nothing is marked.',
  body: z.strictObject({ ids: z.array(z.string().min(1).max(200)).min(1).max(MAX_MARKED_READ) }),
  response: { 200: z.object({ unreadCount: z.number().int().min(0) }), ...errorResponses },
};

export const inAppNotificationView = (d: NotificationDoc): z.infer<typeof inAppNotificationSchema> => ({
  id: d.id,
  kind: d.kind,
  conversationId: d.conversationId,
  customerName: d.customerName,
  byUserId: d.byUserId,
  excerpt: d.excerpt,
  createdAt: d.createdAt,
  read: d.read,
});
