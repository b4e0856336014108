import { z } from 'zod';
import { platformIdSchema } from '../../platformId.js';
import { deliveredTo } from '../events.js';

/**
 * The exactly-once guard of one outgoing message's send, in a stream of its own (`send-<messageId>`), kept by
 * every event store. The conversation forgets a settled send after a while and EventStoreDB would store a late
 * duplicate of the reply again (it recognises a repeated event id only at the same expected revision): a send
 * job finding its message accepted here records the delivery and sends nothing, however late it comes.
 */
export const sendEvents = {
  /** The channel accepted the message (written before the delivery is recorded in the conversation). */
  MessageSendAccepted: z.object({
    messageId: z.uuid(),
    conversationId: z.uuid(),
    platformMessageId: platformIdSchema.nullable(),
    deliveredTo,
    at: z.iso.datetime(),
  }),
};
type Events = typeof sendEvents;
export type SendEvent = { [K in keyof Events]: { type: K; data: z.infer<Events[K]>; id?: string } }[keyof Events];
