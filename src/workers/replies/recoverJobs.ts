import type { Bus } from '../../ports/bus.js';
import type { Logger } from '../../ports/logger.js';
import type { Doc, ReadStore } from '../../ports/readStore.js';
import { ACTION_RESUMES, type ActionResumeDoc } from '../../projections/actionResumes/actionResumesProjection.js';
import { CONVERSATIONS, MESSAGES, type ConversationDoc, type MessageDoc } from '../../projections/conversations/conversationsProjection.js';
import { RESUME_ACTION, type ResumeActionJob } from '../actionResumes/actionResumeJobs.js';
import { GENERATE_REPLY, SEND_MESSAGE } from './replyJobs.js';

async function* all<T extends Doc>(store: ReadStore, collection: string, where: Record<string, string | number | boolean | null>) {
  let cursor: string | null = null;
  do {
    const page: { items: T[]; nextCursor: string | null } = await store.find<T>(collection, { where, limit: 500, cursor });
    yield* page.items;
    cursor = page.nextCursor;
  } while (cursor);
}

/**
 * The in-process bus keeps jobs in memory: a restart loses those not finished, although the reactors'
 * checkpoints have moved past them. With the embedded bus, this sweep republishes them at start-up from the
 * read models: replies still pending delivery, customer messages still awaiting an answer on an active session
 * (a call the customer confirmed runs in that answer's job), and action calls a teammate decided whose follow-up
 * is not written yet. Every job is idempotent, so a job that did finish is a no-op; a call recorded as started is
 * never made again. Each is published under the dedupe id its reactor uses, so a reactor that had not yet
 * published it before the restart and does now is dropped as a duplicate. (JetStream keeps unfinished jobs
 * itself; the sweep is not run there.)
 */
export async function recoverUnfinishedJobs(options: { readStore: ReadStore; bus: Bus; logger: Logger }): Promise<{ sends: number; replies: number; resumes: number }> {
  const { readStore, bus, logger } = options;
  let sends = 0;
  let replies = 0;
  let resumes = 0;
  for await (const m of all<MessageDoc>(readStore, MESSAGES, { delivery: 'pending' })) {
    if (m.author !== 'agent' && m.author !== 'operator') continue;
    await bus.publish(SEND_MESSAGE, { conversationId: m.conversationId, messageId: m.id }, { dedupeId: `send:${m.id}` });
    sends++;
  }
  for await (const c of all<ConversationDoc>(readStore, CONVERSATIONS, { sessionState: 'active' })) {
    if (!c.awaitingReplyTo) continue;
    await bus.publish(GENERATE_REPLY, { conversationId: c.id, messageId: c.awaitingReplyTo, companyId: c.companyId }, { dedupeId: `recover:${c.awaitingReplyTo}` });
    replies++;
  }
  for await (const r of all<ActionResumeDoc>(readStore, ACTION_RESUMES, {})) {
    for (const { callId } of r.calls) {
      const job: ResumeActionJob = { conversationId: r.conversationId, companyId: r.companyId, callId };
      await bus.publish(RESUME_ACTION, job, { dedupeId: `resume:${callId}` });
      resumes++;
    }
  }
  if (sends || replies || resumes) logger.info({ sends, replies, resumes }, 'republished unfinished jobs after a restart');
  return { sends, replies, resumes };
}
