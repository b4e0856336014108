import { conversationIdOfStream } from '../../domain/conversations/decider.js';
import { conversationEvents } from '../../domain/conversations/events.js';
import { RESUME_ACTION, type ResumeActionJob } from './actionResumeJobs.js';
import { defineReactor, REACTOR_CONCURRENCY } from '../../processing/reactor.js';

/**
 * ActionCallApproved / ActionCallRefused ──▶ RESUME_ACTION: the action-resume worker makes the approved call and
 * answers the customer with its result, or tells them it could not be done. One job per call.
 */
export const actionResumeJobsReactor = defineReactor(conversationEvents, {
  name: 'action-resume-jobs',
  eventTypes: ['ActionCallApproved', 'ActionCallRefused'],
  concurrency: REACTOR_CONCURRENCY,
  start: ({ bus }) =>
    async (event) => {
      const companyId = event.metadata.companyId;
      if (!companyId) return;
      const job: ResumeActionJob = { conversationId: conversationIdOfStream(event.stream), companyId, callId: event.data.callId };
      await bus.publish(RESUME_ACTION, job, { dedupeId: `resume:${event.data.callId}` });
    },
});
