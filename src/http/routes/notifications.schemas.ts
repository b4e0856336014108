import { z } from 'zod';
import { HANDOFF_WAITING_MINUTES, type NotificationPreferences } from '../../domain/accounts/notifications/events.js';
import { bearerSecurity as security, errorResponses } from './schemas.js';

export const notificationsSchema = z.object({
  /** Email me when someone assigns a conversation to me. */
  assigned: z.boolean(),
  /** Email me when a handed-off conversation I have (owners and admins: that nobody has) waits longer than handoffWaitingMinutes. */
  handoffWaiting: z.boolean(),
  handoffWaitingMinutes: z.number().int(),
  /** Whether the service can send email at all (SMTP configured); without it nothing is sent, whatever the choices. */
  emailAvailable: z.boolean(),
});

const tags = ['team'];

export const getNotificationsSchema = {
  tags,
  security,
  summary: 'Your own email notification choices',
  response: { 200: z.object({ notifications: notificationsSchema }), ...errorResponses },
};

export const putNotificationsSchema = {
  tags,
  security,
  summary: 'Set your own email notification choices (what is left out keeps its value)',
  body: z.strictObject({
    assigned: z.boolean().optional(),
    handoffWaiting: z.boolean().optional(),
    handoffWaitingMinutes: z.number().int().min(HANDOFF_WAITING_MINUTES.min).max(HANDOFF_WAITING_MINUTES.max).optional(),
  }),
  response: { 200: z.object({ notifications: notificationsSchema }), ...errorResponses },
};

export const notificationsView = (p: NotificationPreferences, emailAvailable: boolean): z.infer<typeof notificationsSchema> => ({
  assigned: p.assigned,
  handoffWaiting: p.handoffWaiting,
  handoffWaitingMinutes: p.handoffWaitingMinutes,
  emailAvailable,
});
