import { z } from 'zod';

/** Bus subjects and job payloads of the reply pipeline. */
export const GENERATE_REPLY = 'replies.generate';
export const SEND_MESSAGE = 'messages.send';
export const webchatSubject = (conversationId: string) => `webchat.${conversationId}`;

/** W3C traceparent of the span whose event the job follows (tracing on only): the worker's span joins its trace. */
const traceparent = z.string().regex(/^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/).optional();

/** `receivedAt`: when the message arrived, from which its burst window and its place in the queue count. */
export const generateReplyJob = z.object({ conversationId: z.uuid(), messageId: z.uuid(), companyId: z.uuid(), receivedAt: z.iso.datetime().optional(), traceparent });
export type GenerateReplyJob = z.infer<typeof generateReplyJob>;

/** `revision`: where the message's event sits in the conversation, so the sender reads one event, not the stream. */
/** `companyId`: whose turn the send takes (jobs published before it was carried are served as one company). */
export const sendMessageJob = z.object({
  conversationId: z.uuid(),
  messageId: z.uuid(),
  revision: z.string().regex(/^\d{1,19}$/).optional(),
  companyId: z.uuid().optional(),
  traceparent,
});
export type SendMessageJob = z.infer<typeof sendMessageJob>;
