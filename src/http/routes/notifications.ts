import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { loadNotificationPreferences, setNotificationPreferences } from '../../commands/accounts/notifications.js';
import { authenticator, authOf } from '../authenticate.js';
import type { HttpServices } from '../services.js';
import { getNotificationsSchema, notificationsView, putNotificationsSchema } from './notifications.schemas.js';

/** GET/PUT /api/me/notifications: every teammate reads and sets their own email notifications (any role). */
export function notificationRoutes(services: HttpServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.addHook('onRequest', authenticator(services));
    const emailAvailable = services.mailer !== undefined;
    app.get('/api/me/notifications', { schema: getNotificationsSchema }, async (request) => ({
      notifications: notificationsView(await loadNotificationPreferences(services.commands, authOf(request).userId), emailAvailable),
    }));
    app.put('/api/me/notifications', { schema: putNotificationsSchema }, async (request) => {
      const result = await setNotificationPreferences(services.commands, authOf(request), request.body);
      return { notifications: notificationsView(result.state, emailAvailable) };
    });
  };
}
