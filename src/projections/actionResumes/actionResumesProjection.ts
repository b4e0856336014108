import { followUpReplyId } from '../../domain/conversations/actionCalls.js';
import { conversationIdOfStream } from '../../domain/conversations/decider.js';
import { conversationEvents } from '../../domain/conversations/events.js';
import type { Doc } from '../../ports/readStore.js';
import { defineProjection } from '../projection.js';

/**
 * The calls a teammate decided (approved or refused) whose follow-up to the customer is not written yet: the
 * resume jobs still owed. The embedded bus keeps jobs in memory, so a restart loses the ones in flight; the
 * start-up sweep publishes these again (src/workers/replies/recoverJobs.ts). One document per conversation, holding its
 * decided calls until each follow-up reply (its id derived from the call) is recorded, or until the AI stops
 * answering the conversation (paused or closed: the resume would be skipped, the people there tell the customer).
 */
export interface ActionResumeDoc extends Doc {
  conversationId: string;
  companyId: string;
  calls: { callId: string; followUpId: string; decidedAt: string }[];
}

export const ACTION_RESUMES = 'action_resumes';
/** More decided calls than this waiting in one conversation would be a fault; the oldest make room. */
const MAX_CALLS = 10;

export const actionResumesProjection = defineProjection(conversationEvents, {
  name: 'actionResumes',
  collections: [{ name: ACTION_RESUMES, indexes: [] }],
  eventTypes: ['ActionCallApproved', 'ActionCallRefused', 'AgentReplied', 'AiSessionPaused', 'AiSessionClosed'],
  async apply(event, ctx) {
    const conversationId = conversationIdOfStream(event.stream);
    if (event.type === 'AiSessionPaused' || event.type === 'AiSessionClosed') {
      ctx.delete(ACTION_RESUMES, conversationId);
      return;
    }
    const doc = await ctx.get<ActionResumeDoc>(ACTION_RESUMES, conversationId);
    if (event.type === 'AgentReplied') {
      if (!doc) return;
      const calls = doc.calls.filter((c) => c.followUpId !== event.data.messageId);
      if (calls.length === doc.calls.length) return;
      if (calls.length === 0) ctx.delete(ACTION_RESUMES, conversationId);
      else ctx.put(ACTION_RESUMES, { ...doc, calls });
      return;
    }
    const { callId, at } = event.data;
    const calls = (doc?.calls ?? []).filter((c) => c.callId !== callId);
    ctx.put(ACTION_RESUMES, {
      id: conversationId,
      conversationId,
      companyId: doc?.companyId ?? event.metadata.companyId ?? '',
      calls: [...calls, { callId, followUpId: followUpReplyId(callId), decidedAt: at }].slice(-MAX_CALLS),
    } satisfies ActionResumeDoc);
  },
});
