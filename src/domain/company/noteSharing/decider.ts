import type { Decider } from '../../decider.js';
import type { NoteSharingEvent } from './events.js';
import { evolveNoteSharing, initialNoteSharingState, type NoteSharingState } from './state.js';

export type NoteSharingCommand = { type: 'ConfigureNoteSharing'; shareWithAi: boolean; by: string; now: string };

const PREFIX = 'note-sharing-';
export const noteSharingStream = (companyId: string) => `${PREFIX}${companyId}`;

export const noteSharingDecider: Decider<NoteSharingCommand, NoteSharingEvent, NoteSharingState> = {
  initialState: initialNoteSharingState,
  evolve: evolveNoteSharing,
  decide(command, state) {
    // Setting what is already set records nothing (a double click, a retried request).
    if (command.shareWithAi === state.shareWithAi) return [];
    return [{ type: 'NoteSharingConfigured', data: { shareWithAi: command.shareWithAi, by: command.by, at: command.now } }];
  },
};
