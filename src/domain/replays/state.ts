import type { ReplayEvent, ReplayStatus } from './events.js';

export type ReplayState =
  | { status: 'none' }
  | {
      status: ReplayStatus;
      replayId: string;
      companyId: string;
      total: number;
      /** `<conversationId>:<turn>` of every answer recorded: bounded by REPLAY_LIMITS (at most 1000). */
      recorded: string[];
    };

export const answerKey = (conversationId: string, turn: number) => `${conversationId}:${turn}`;

export const initialReplayState: ReplayState = { status: 'none' };

export function evolveReplay(state: ReplayState, event: ReplayEvent): ReplayState {
  if (event.type === 'ReplayRequested') {
    const d = event.data;
    return { status: 'running', replayId: d.replayId, companyId: d.companyId, total: d.total, recorded: [] };
  }
  if (state.status === 'none') return state;
  switch (event.type) {
    case 'ReplayAnswerRecorded':
      return { ...state, recorded: [...state.recorded, answerKey(event.data.conversationId, event.data.turn)] };
    case 'ReplayCompleted':
      return { ...state, status: 'completed' };
    case 'ReplayFailed':
      return { ...state, status: 'failed' };
    case 'ReplayCancelled':
      return { ...state, status: 'cancelled' };
  }
}
