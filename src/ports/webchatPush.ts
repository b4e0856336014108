import { z } from 'zod';

/**
 * What the server pushes to a web chat visitor outside a request/response (agent and operator messages,
 * typing), as it crosses the bus from the workers to whichever instance holds the visitor's socket.
 */
/** Most characters one `delta` push carries. */
export const WEBCHAT_DELTA_MAX_CHARS = 2000;

export const webchatPushSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('message'), id: z.string(), author: z.enum(['agent', 'operator']), text: z.string(), createdAt: z.string() }),
  z.object({ type: z.literal('typing'), on: z.boolean() }),
  /** The satisfaction survey of the closed conversation: the widget shows it inline (answered with a `csat` frame). */
  z.object({ type: z.literal('csat'), surveyId: z.string(), question: z.string(), createdAt: z.string() }),
  /**
   * A piece of an agent reply still being generated (streamed answers): `text` goes at `offset` of the reply
   * `id` (the id its final `message` will have). Offset 0 starts the partial over (a retry). The final
   * `message` replaces it; a partial whose reply never comes is dropped by the widget at `typing: false`.
   */
  z.object({ type: z.literal('delta'), id: z.string().max(64), offset: z.number().int().min(0).max(1_000_000), text: z.string().min(1).max(WEBCHAT_DELTA_MAX_CHARS) }),
]);
export type WebchatPush = z.infer<typeof webchatPushSchema>;

/**
 * On the bus (never sent to a visitor), every push also names the signed user its conversation was verified
 * for when it was made (`verifiedUserId`; null or absent: nobody), and a `visitorVerified` notice says so the
 * moment the conversation is verified. A socket not signed as that user is cut instead of receiving more: a tab
 * that joined before the visitor signed in on another one must not see the answers made with their identity.
 */
const audienceSchema = z.object({ verifiedUserId: z.string().min(1).nullable().optional() });
const visitorVerifiedSchema = z.object({ type: z.literal('visitorVerified'), verifiedUserId: z.string().min(1) });

/** What one bus message of a conversation's subject says: a push for its visitor (or none), and whose conversation it is. */
export interface ConversationNews {
  push: WebchatPush | null;
  verifiedUserId: string | null;
}

/** A push as it goes on the bus, with the user the conversation is verified for (null: nobody, left out). */
export const pushFor = (push: WebchatPush, verifiedUserId: string | null) => (verifiedUserId === null ? push : { ...push, verifiedUserId });

/** The notice of a conversation just verified for `userId`. */
export const visitorVerifiedNotice = (userId: string): z.infer<typeof visitorVerifiedSchema> => ({ type: 'visitorVerified', verifiedUserId: userId });

/** A bus message of a conversation's subject; null when it has neither documented shape (dropped). */
export function parseConversationNews(data: unknown): ConversationNews | null {
  const notice = visitorVerifiedSchema.safeParse(data);
  if (notice.success) return { push: null, verifiedUserId: notice.data.verifiedUserId };
  const push = webchatPushSchema.safeParse(data);
  const audience = audienceSchema.safeParse(data);
  if (!push.success || !audience.success) return null;
  return { push: push.data, verifiedUserId: audience.data.verifiedUserId ?? null };
}
