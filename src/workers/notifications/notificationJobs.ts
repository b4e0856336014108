import { z } from 'zod';

/** Bus subject and job of the assignment emails: one per ConversationAssigned (`eventId`: the occasion, emailed once). */
export const NOTIFY_ASSIGNED = 'notifications.assigned';
export const notifyAssignedJob = z.object({ conversationId: z.uuid(), companyId: z.uuid(), assigneeId: z.uuid(), by: z.string().max(100), eventId: z.string().max(100) });
export type NotifyAssignedJob = z.infer<typeof notifyAssignedJob>;
