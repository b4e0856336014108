import { z } from 'zod';

/**
 * A company's canned replies: short texts an operator inserts with `/shortcut` in the reply box. One stream per
 * company (`cannedreplies-<companyId>`) holds them all, so a shortcut is unique and the count is capped by one
 * decision, without a reservation stream; the set is small (CANNED_REPLY_LIMITS.count) and edited by hand.
 */

export const CANNED_REPLY_LIMITS = { count: 200, shortcut: 32, title: 100, text: 4000 } as const;
/** Lower-case letters, digits, `-` and `_`, starting with a letter or digit: what follows the `/`. */
export const SHORTCUT_PATTERN = /^[a-z0-9][a-z0-9_-]*$/;

const at = z.iso.datetime();
export const cannedReplyFields = z.object({
  shortcut: z.string().min(1).max(CANNED_REPLY_LIMITS.shortcut).regex(SHORTCUT_PATTERN),
  title: z.string().min(1).max(CANNED_REPLY_LIMITS.title),
  text: z.string().min(1).max(CANNED_REPLY_LIMITS.text),
});
export type CannedReplyFields = z.infer<typeof cannedReplyFields>;

export const cannedReplyEvents = {
  CannedReplyCreated: cannedReplyFields.extend({ cannedReplyId: z.uuid(), companyId: z.uuid(), by: z.string().max(100), at }),
  CannedReplyUpdated: z.object({ cannedReplyId: z.uuid(), changes: cannedReplyFields.partial(), by: z.string().max(100), at }),
  CannedReplyDeleted: z.object({ cannedReplyId: z.uuid(), by: z.string().max(100), at }),
};
type Events = typeof cannedReplyEvents;
export type CannedReplyEvent = { [K in keyof Events]: { type: K; data: z.infer<Events[K]>; id?: string } }[keyof Events];

