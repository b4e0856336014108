import { cannedReplyEvents } from '../../domain/cannedReplies/events.js';
import type { Doc } from '../../ports/readStore.js';
import { defineProjection } from '../projection.js';

/** A company's canned replies, listed by shortcut. Deleted ones are removed. */
export interface CannedReplyDoc extends Doc {
  companyId: string;
  shortcut: string;
  title: string;
  text: string;
  createdAt: string;
  updatedAt: string;
}

export const CANNED_REPLIES = 'canned_replies';

export const cannedRepliesProjection = defineProjection(cannedReplyEvents, {
  name: 'cannedReplies',
  collections: [{ name: CANNED_REPLIES, indexes: [['companyId', 'shortcut']] }],
  eventTypes: ['CannedReplyCreated', 'CannedReplyUpdated', 'CannedReplyDeleted'],
  async apply(event, ctx) {
    if (event.type === 'CannedReplyCreated') {
      const d = event.data;
      ctx.put(CANNED_REPLIES, {
        id: d.cannedReplyId,
        companyId: d.companyId,
        shortcut: d.shortcut,
        title: d.title,
        text: d.text,
        createdAt: d.at,
        updatedAt: d.at,
      } satisfies CannedReplyDoc);
      return;
    }
    const doc = await ctx.get<CannedReplyDoc>(CANNED_REPLIES, event.data.cannedReplyId);
    if (!doc) return;
    if (event.type === 'CannedReplyUpdated') ctx.put(CANNED_REPLIES, { ...doc, ...event.data.changes, updatedAt: event.data.at });
    else ctx.delete(CANNED_REPLIES, doc.id);
  },
});
