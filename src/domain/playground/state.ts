import { PLAYGROUND_LIMITS, type PlaygroundActions, type PlaygroundEvent } from './events.js';

export interface PlaygroundState {
  sessionId: string | null;
  companyId: string | null;
  agentId: string | null;
  questions: number;
  /** Questions asked and not yet answered or failed, newest last (at most PLAYGROUND_LIMITS.pending). */
  pending: string[];
  /** How the agent's action calls are answered in this session. */
  actions: PlaygroundActions;
}

export const initialPlaygroundState: PlaygroundState = { sessionId: null, companyId: null, agentId: null, questions: 0, pending: [], actions: 'mocked' };

export function evolvePlayground(state: PlaygroundState, event: PlaygroundEvent): PlaygroundState {
  switch (event.type) {
    case 'PlaygroundStarted':
      return { ...state, sessionId: event.data.sessionId, companyId: event.data.companyId, agentId: event.data.agentId, actions: event.data.actions ?? 'mocked' };
    case 'PlaygroundQuestionAsked':
      // A question left waiting by a crash is forgotten once this many newer ones wait: the state stays small.
      return { ...state, questions: state.questions + 1, pending: [...state.pending.slice(-(PLAYGROUND_LIMITS.pending - 1)), event.data.questionId] };
    case 'PlaygroundAnswered':
    case 'PlaygroundAnswerFailed':
      return { ...state, pending: state.pending.filter((id) => id !== event.data.questionId) };
  }
}
