import { z } from 'zod';

/**
 * An operator message's Idempotency-Key, recorded once the message it sent is stored, on a stream of its own
 * named for the key (`opmsgkey-<id>`, the id derived from the company, the key and the conversation: the
 * message's own id), appended only where no stream exists yet. A request sent again under the key finds it
 * and sends nothing, however many messages the conversation has had since: the conversation itself keeps only
 * its recent sends (a window), so it alone cannot tell a late repeat from a new message, on any engine.
 */
export const operatorMessageKeyEvents = {
  OperatorMessageKeyUsed: z.object({ messageId: z.uuid(), conversationId: z.uuid(), companyId: z.uuid(), at: z.iso.datetime() }),
};
type Events = typeof operatorMessageKeyEvents;
export type OperatorMessageKeyEvent = { [K in keyof Events]: { type: K; data: z.infer<Events[K]> } }[keyof Events];

export const operatorMessageKeyStream = (messageId: string) => `opmsgkey-${messageId}`;
