import type { RetentionEvent } from './events.js';

export type RetentionState = { conversationDays: number | null; updatedBy: string | null; updatedAt: string | null };

/** Everything is kept until the company chooses a period. */
export const initialRetentionState: RetentionState = { conversationDays: null, updatedBy: null, updatedAt: null };

export function evolveRetention(_state: RetentionState, event: RetentionEvent): RetentionState {
  return { conversationDays: event.data.conversationDays, updatedBy: event.data.by, updatedAt: event.data.at };
}
