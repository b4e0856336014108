import { conversationIdOfStream } from '../../domain/conversations/decider.js';
import { conversationEvents } from '../../domain/conversations/events.js';
import { SUMMARIZE_HANDOFF, type SummarizeHandoffJob } from './handoffSummaryJobs.js';
import { defineReactor, REACTOR_CONCURRENCY } from '../../processing/reactor.js';

/**
 * The events that hand a conversation to people ──▶ SUMMARIZE_HANDOFF: the summary worker writes the note for
 * whoever takes over. One event of a handoff is enough; the worker finds the current handoff on the stream and
 * records at most one summary per handoff, so the several events of one handoff (a handoff reply and its pause)
 * cost one summary.
 */
export const handoffSummaryJobsReactor = defineReactor(conversationEvents, {
  name: 'handoff-summary-jobs',
  eventTypes: ['AgentReplied', 'AiSessionPaused', 'HumanRequested', 'DialogTransferred'],
  concurrency: REACTOR_CONCURRENCY,
  start: ({ bus }) =>
    async (event) => {
      const companyId = event.metadata.companyId;
      if (!companyId) return;
      if (event.type === 'AgentReplied' && !event.data.handoff) return;
      if (event.type === 'AiSessionPaused' && event.data.reason !== 'handoff') return;
      const job: SummarizeHandoffJob = { conversationId: conversationIdOfStream(event.stream), companyId };
      await bus.publish(SUMMARIZE_HANDOFF, job, { dedupeId: `summary:${event.id}` });
    },
});
