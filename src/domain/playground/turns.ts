import type { PlaygroundAnswer, PlaygroundEvent } from './events.js';

/** One question of a playground session with what became of it: an answer, a failure, or still waiting. */
export interface PlaygroundTurn {
  question: { id: string; text: string; at: string };
  answer: (Omit<PlaygroundAnswer, 'questionId' | 'answerId'> & { id: string }) | null;
  failure: { reason: string; at: string } | null;
}

/** The session's turns in the order the questions were asked (pure: a fold of its events). */
export function playgroundTurns(events: PlaygroundEvent[]): PlaygroundTurn[] {
  const turns = new Map<string, PlaygroundTurn>();
  for (const e of events) {
    switch (e.type) {
      case 'PlaygroundQuestionAsked':
        turns.set(e.data.questionId, { question: { id: e.data.questionId, text: e.data.text, at: e.data.at }, answer: null, failure: null });
        break;
      case 'PlaygroundAnswered': {
        const turn = turns.get(e.data.questionId);
        const { questionId: _q, answerId, ...answer } = e.data;
        if (turn) turn.answer = { id: answerId, ...answer };
        break;
      }
      case 'PlaygroundAnswerFailed': {
        const turn = turns.get(e.data.questionId);
        if (turn) turn.failure = { reason: e.data.reason, at: e.data.at };
        break;
      }
      default:
        break;
    }
  }
  return [...turns.values()];
}
