import { z } from 'zod';

/**
 * How far one teammate has read one conversation, for unread counts. Its own tiny stream per (conversation,
 * user), never the conversation's stream: reading is not something that happened to the conversation (it stays
 * out of its audit timeline, its live events and the reply worker's reads).
 *
 * Why an event at all, and why it cannot flood the store: a read model written straight from the API would be
 * lost on every rebuild (and bypass the one-writer-per-collection rule), so the marker is a fact. But it is
 * recorded only when a teammate opens a conversation that has customer messages they have not seen; opening
 * it again records nothing. So the store grows with (customer messages × teammates who read them), never with
 * page views or refreshes.
 */
const at = z.iso.datetime();

export const readMarkerEvents = {
  ConversationRead: z.object({
    conversationId: z.uuid(),
    companyId: z.uuid(),
    userId: z.uuid(),
    /** The conversation's customer message count the teammate has seen. */
    customerMessages: z.number().int().min(0),
    at,
  }),
};

type Events = typeof readMarkerEvents;
export type ReadMarkerEvent = { [K in keyof Events]: { type: K; data: z.infer<Events[K]> } }[keyof Events];
