import { conversationIdOfStream } from '../../domain/conversations/decider.js';
import { conversationEvents } from '../../domain/conversations/events.js';
import { GENERATE_REPLY, SEND_MESSAGE, type GenerateReplyJob, type SendMessageJob } from './replyJobs.js';
import { defineReactor, REACTOR_CONCURRENCY } from '../../processing/reactor.js';


/** MessageReceived ──▶ GENERATE_REPLY: the reply worker answers it (deduplicated by the event's id). */
export const replyJobsReactor = defineReactor(conversationEvents, {
  name: 'reply-jobs',
  eventTypes: ['MessageReceived'],
  concurrency: REACTOR_CONCURRENCY,
  start: ({ bus }) =>
    async (event) => {
      const companyId = event.metadata.companyId;
      if (!companyId) return;
      const job: GenerateReplyJob = {
        conversationId: conversationIdOfStream(event.stream),
        messageId: event.data.messageId,
        companyId,
        receivedAt: event.data.at ?? event.createdAt,
        ...(event.metadata.traceparent ? { traceparent: event.metadata.traceparent } : {}),
      };
      await bus.publish(GENERATE_REPLY, job, { dedupeId: event.id });
    },
});

/**
 * AgentReplied / OperatorMessageSent / CsatRequested ──▶ SEND_MESSAGE: the send worker delivers it (one job per
 * message id; a survey is delivered like a message: a platform text, the widget's inline form on web chat).
 */
export const outboundJobsReactor = defineReactor(conversationEvents, {
  name: 'outbound-jobs',
  eventTypes: ['AgentReplied', 'OperatorMessageSent', 'CsatRequested'],
  concurrency: REACTOR_CONCURRENCY,
  start: ({ bus }) =>
    async (event) => {
      const companyId = event.metadata.companyId;
      const { messageId } = event.data;
      if (!messageId) return; // a survey stored before its delivery was tracked
      const job: SendMessageJob = { conversationId: conversationIdOfStream(event.stream), messageId, revision: String(event.revision), ...(companyId ? { companyId } : {}), ...(event.metadata.traceparent ? { traceparent: event.metadata.traceparent } : {}) };
      await bus.publish(SEND_MESSAGE, job, { dedupeId: `send:${messageId}` });
    },
});
