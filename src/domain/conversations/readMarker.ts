import { z } from 'zod';
import type { Decider } from '../decider.js';

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
export type ReadMarkerState = { customerMessages: number };
export type ReadMarkerCommand = { type: 'MarkConversationRead'; conversationId: string; companyId: string; userId: string; customerMessages: number; now: string };

export const readMarkerDecider: Decider<ReadMarkerCommand, ReadMarkerEvent, ReadMarkerState> = {
  initialState: { customerMessages: 0 },
  evolve: (state, event) => ({ customerMessages: Math.max(state.customerMessages, event.data.customerMessages) }),
  decide(command, state) {
    // Only news moves the marker: a re-open, or a late request carrying an older count, records nothing.
    if (command.customerMessages <= state.customerMessages) return [];
    const { type: _type, now, ...data } = command;
    return [{ type: 'ConversationRead', data: { ...data, at: now } }];
  },
};

export const readMarkerStream = (conversationId: string, userId: string) => `conversationread-${conversationId}-${userId}`;
