import { z } from 'zod';

/**
 * What the server pushes to a web chat visitor outside a request/response (agent and operator messages,
 * typing), as it crosses the bus from the workers to whichever instance holds the visitor's socket.
 */
export const webchatPushSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('message'), id: z.string(), author: z.enum(['agent', 'operator']), text: z.string(), createdAt: z.string() }),
  z.object({ type: z.literal('typing'), on: z.boolean() }),
]);
export type WebchatPush = z.infer<typeof webchatPushSchema>;
