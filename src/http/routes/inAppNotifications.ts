import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { markNotificationsRead } from '../../commands/accounts/inAppNotifications.js';
import { countUnreadNotifications, listNotifications, ownNotificationIds } from '../../projections/notifications/queries.js';
import { authenticator, authOf } from '../authenticate.js';
import { notFound } from '../errors.js';
import type { HttpServices } from '../services.js';
import { inAppNotificationView, listInAppNotificationsSchema, markInAppNotificationsReadSchema } from './inAppNotifications.schemas.js';

/** GET /api/me/notifications/feed and POST /api/me/notifications/read: every teammate, their own notifications only. */
export function inAppNotificationRoutes(services: HttpServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.addHook('onRequest', authenticator(services));

    app.get('/api/me/notifications/feed', { schema: listInAppNotificationsSchema }, async (request) => {
      const auth = authOf(request);
      const { limit, cursor, unread } = request.query;
      const [page, unreadCount] = await Promise.all([listNotifications(services.readStore, auth, { unread: unread === 'true' }, { limit, cursor }), countUnreadNotifications(services.readStore, auth)]);
      return { notifications: page.items.map(inAppNotificationView), unreadCount, nextCursor: page.nextCursor };
    });

    app.post('/api/me/notifications/read', { schema: markInAppNotificationsReadSchema }, async (request) => {
      const auth = authOf(request);
      const ids = [...new Set(request.body.ids)];
      const own = await ownNotificationIds(services.readStore, auth, ids);
      if (own.length !== ids.length) throw notFound('Notification');
      const result = await markNotificationsRead(services.commands, auth, own);
      await services.waitForProjections(result.position);
      return { unreadCount: await countUnreadNotifications(services.readStore, auth) };
    });
  };
}
