import { z } from 'zod';
import type { ReadStore } from '../../ports/readStore.js';
import { CONVERSATIONS, type ConversationDoc } from './conversationsProjection.js';

/**
 * A company's AI answers count as delayed once its oldest conversation waiting for one has waited longer than
 * this. A healthy answer takes seconds (the burst window, then the model); a minute means the company's reply
 * queue is backed up (docs/fair-processing.md, "A company's own overload"), well before REPLY_MAX_DELAY_MS
 * (5 min) hands its messages to people as "AI backlog".
 */
export const AI_REPLIES_DELAYED_AFTER_MS = 60_000;

export const aiBacklogSchema = z.object({
  /** Conversations of the company whose customer waits for an AI answer (one answer covers all their messages). */
  waiting: z.number().int().min(0),
  /** The oldest customer message among them still unanswered; null when none waits. */
  oldestWaitingSince: z.string().nullable(),
  /** The oldest has waited longer than AI_REPLIES_DELAYED_AFTER_MS. */
  delayed: z.boolean(),
});
export type AiBacklog = z.infer<typeof aiBacklogSchema>;

/**
 * The company's AI backlog from the conversations read model: one count and one oldest-first lookup on the
 * ['companyId', 'awaitingAi', 'awaitingAiSince'] index, whatever the number of conversations.
 */
export async function aiBacklogOf(readStore: ReadStore, companyId: string, now: Date): Promise<AiBacklog> {
  const where = { companyId, awaitingAi: true };
  const [waiting, oldest] = await Promise.all([
    readStore.count(CONVERSATIONS, where),
    readStore.find<ConversationDoc>(CONVERSATIONS, { where, orderBy: [{ field: 'awaitingAiSince', direction: 'asc' }], limit: 1 }),
  ]);
  const oldestWaitingSince = waiting > 0 ? (oldest.items[0]?.awaitingAiSince ?? null) : null;
  const waitedMs = oldestWaitingSince ? now.getTime() - Date.parse(oldestWaitingSince) : 0;
  return { waiting, oldestWaitingSince, delayed: waitedMs > AI_REPLIES_DELAYED_AFTER_MS };
}
