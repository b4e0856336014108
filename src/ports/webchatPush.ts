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
