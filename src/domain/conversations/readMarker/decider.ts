import type { Decider } from '../../decider.js';
import type { ReadMarkerEvent } from './events.js';
import { evolveReadMarker, initialReadMarkerState, type ReadMarkerState } from './state.js';

export type ReadMarkerCommand = { type: 'MarkConversationRead'; conversationId: string; companyId: string; userId: string; customerMessages: number; now: string };

export const readMarkerDecider: Decider<ReadMarkerCommand, ReadMarkerEvent, ReadMarkerState> = {
  initialState: initialReadMarkerState,
  evolve: evolveReadMarker,
  decide(command, state) {
    // Only news moves the marker: a re-open, or a late request carrying an older count, records nothing.
    if (command.customerMessages <= state.customerMessages) return [];
    const { type: _type, now, ...data } = command;
    return [{ type: 'ConversationRead', data: { ...data, at: now } }];
  },
};

export const readMarkerStream = (conversationId: string, userId: string) => `conversationread-${conversationId}-${userId}`;
