import { conversationIdOfStream } from '../../domain/conversations/decider.js';
import { conversationEvents } from '../../domain/conversations/events.js';
import { NOTIFY_ASSIGNED, type NotifyAssignedJob } from './notificationJobs.js';
import { defineReactor, REACTOR_CONCURRENCY } from '../../processing/reactor.js';

/** ConversationAssigned ──▶ NOTIFY_ASSIGNED: the notification worker emails the assignee, if they want it. */
export const assignmentNotificationsReactor = defineReactor(conversationEvents, {
  name: 'assignment-notifications',
  eventTypes: ['ConversationAssigned'],
  concurrency: REACTOR_CONCURRENCY,
  start: ({ bus }) =>
    async (event) => {
      const companyId = event.metadata.companyId;
      if (!companyId) return;
      const job: NotifyAssignedJob = { conversationId: conversationIdOfStream(event.stream), companyId, assigneeId: event.data.assigneeId, by: event.data.by, eventId: event.id };
      await bus.publish(NOTIFY_ASSIGNED, job, { dedupeId: `notify:${event.id}` });
    },
});
