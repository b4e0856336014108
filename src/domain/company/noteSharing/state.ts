import type { NoteSharingEvent } from './events.js';

export type NoteSharingState = { shareWithAi: boolean };

/** Notes stay with the team unless the company chooses otherwise. */
export const initialNoteSharingState: NoteSharingState = { shareWithAi: false };

export function evolveNoteSharing(_state: NoteSharingState, event: NoteSharingEvent): NoteSharingState {
  return { shareWithAi: event.data.shareWithAi };
}
