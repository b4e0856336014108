import type { Decider } from '../../decider.js';
import type { PlatformRefEvent } from './events.js';
import { evolvePlatformRef, initialPlatformRefState, type PlatformRefState } from './state.js';

export type PlatformRefKind = 'request' | 'dialog';
export type PlatformRefCommand = { type: 'LinkPlatformRef'; conversationId: string; now: string };

export const platformRefDecider: Decider<PlatformRefCommand, PlatformRefEvent, PlatformRefState> = {
  initialState: initialPlatformRefState,
  evolve: evolvePlatformRef,
  // The newest link wins: a request id the platform reuses for another customer moves with it.
  decide: (command, state) =>
    state.conversationId === command.conversationId ? [] : [{ type: 'PlatformRefLinked', data: { conversationId: command.conversationId, at: command.now } }],
};
