import { z } from 'zod';
import type { Decider } from '../decider.js';

/**
 * Status events name a platform request or dialog, not a customer. A lookup stream per (integration, kind,
 * id) records which conversation the id belongs to, written by the command that received the message, so a
 * status event finds its conversation with one bounded read: no waiting for a read model to catch up.
 */
export const platformRefEvents = {
  PlatformRefLinked: z.object({ conversationId: z.uuid(), at: z.iso.datetime() }),
};
type Events = typeof platformRefEvents;
export type PlatformRefEvent = { [K in keyof Events]: { type: K; data: z.infer<Events[K]>; id?: string } }[keyof Events];

export type PlatformRefKind = 'request' | 'dialog';
export type PlatformRefState = { conversationId: string | null };
export type PlatformRefCommand = { type: 'LinkPlatformRef'; conversationId: string; now: string };

export const platformRefDecider: Decider<PlatformRefCommand, PlatformRefEvent, PlatformRefState> = {
  initialState: { conversationId: null },
  evolve: (_state, event) => ({ conversationId: event.data.conversationId }),
  // The newest link wins: a request id the platform reuses for another customer moves with it.
  decide: (command, state) =>
    state.conversationId === command.conversationId ? [] : [{ type: 'PlatformRefLinked', data: { conversationId: command.conversationId, at: command.now } }],
};
