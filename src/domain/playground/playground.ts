import { z } from 'zod';
import { generatedAnswerSchema } from '../answers/provenance.js';
import type { Decider } from '../decider.js';
import { DomainError } from '../errors.js';

/**
 * The agent playground: a teammate chats with an agent from the dashboard, with no platform and no customer.
 * One stream per session (`playground-<sessionId>`), never a conversation stream: nothing here is sent to a
 * customer, counted in analytics (built from conversation events) or shown in the inbox. Answers are charged
 * like replies (the credit-charges reactor, per answer id).
 *
 * A session holds at most PLAYGROUND_LIMITS.questions questions, so the stream stays short enough to read whole
 * (a GET, the prompt's history): a longer try starts a new session.
 */

export const PLAYGROUND_LIMITS = {
  /** Questions per session. */
  questions: 100,
  /** Like a web chat visitor's message (WEBCHAT_MAX_TEXT_LENGTH). */
  text: 16 * 1024,
  /** Questions tracked as waiting for their answer (the HTTP side allows fewer LLM calls at once per company). */
  pending: 8,
  reason: 500,
} as const;

const at = z.iso.datetime();

export const playgroundEvents = {
  PlaygroundStarted: z.object({ sessionId: z.uuid(), companyId: z.uuid(), agentId: z.uuid(), startedBy: z.string().max(100), at }),
  PlaygroundQuestionAsked: z.object({ questionId: z.uuid(), text: z.string().min(1).max(PLAYGROUND_LIMITS.text), by: z.string().max(100), at }),
  PlaygroundAnswered: generatedAnswerSchema.extend({ questionId: z.uuid(), answerId: z.uuid(), at }),
  /** The model failed (error, timeout, the teammate left): recorded so the session says why there is no answer. */
  PlaygroundAnswerFailed: z.object({ questionId: z.uuid(), reason: z.string().min(1).max(PLAYGROUND_LIMITS.reason), at }),
};
type Events = typeof playgroundEvents;
export type PlaygroundEvent = { [K in keyof Events]: { type: K; data: z.infer<Events[K]>; id?: string } }[keyof Events];
export type PlaygroundAnswer = z.infer<Events['PlaygroundAnswered']>;

export interface PlaygroundState {
  sessionId: string | null;
  companyId: string | null;
  agentId: string | null;
  questions: number;
  /** Questions asked and not yet answered or failed, newest last (at most PLAYGROUND_LIMITS.pending). */
  pending: string[];
}

export type PlaygroundCommand =
  | { type: 'StartPlayground'; sessionId: string; companyId: string; agentId: string; startedBy: string; now: string }
  | { type: 'AskPlaygroundQuestion'; questionId: string; text: string; by: string; now: string }
  | ({ type: 'RecordPlaygroundAnswer'; now: string } & Omit<PlaygroundAnswer, 'at'>)
  | { type: 'RecordPlaygroundFailure'; questionId: string; reason: string; now: string };

const PLAYGROUND_PREFIX = 'playground-';
export const playgroundStream = (sessionId: string) => `${PLAYGROUND_PREFIX}${sessionId}`;
export const playgroundIdOfStream = (stream: string) => stream.slice(PLAYGROUND_PREFIX.length);

export const playgroundDecider: Decider<PlaygroundCommand, PlaygroundEvent, PlaygroundState> = {
  initialState: { sessionId: null, companyId: null, agentId: null, questions: 0, pending: [] },
  evolve(state, event) {
    switch (event.type) {
      case 'PlaygroundStarted':
        return { ...state, sessionId: event.data.sessionId, companyId: event.data.companyId, agentId: event.data.agentId };
      case 'PlaygroundQuestionAsked':
        // A question left waiting by a crash is forgotten once this many newer ones wait: the state stays small.
        return { ...state, questions: state.questions + 1, pending: [...state.pending.slice(-(PLAYGROUND_LIMITS.pending - 1)), event.data.questionId] };
      case 'PlaygroundAnswered':
      case 'PlaygroundAnswerFailed':
        return { ...state, pending: state.pending.filter((id) => id !== event.data.questionId) };
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'StartPlayground':
        if (state.sessionId !== null) throw new DomainError('CONFLICT', 'This playground session already exists');
        return [
          {
            type: 'PlaygroundStarted',
            data: { sessionId: command.sessionId, companyId: command.companyId, agentId: command.agentId, startedBy: command.startedBy, at: command.now },
          },
        ];
      case 'AskPlaygroundQuestion': {
        if (state.sessionId === null) throw new DomainError('NOT_FOUND', 'Playground session not found');
        const text = command.text.trim();
        if (text.length === 0) throw new DomainError('VALIDATION_ERROR', 'text: must not be empty');
        if (text.length > PLAYGROUND_LIMITS.text) throw new DomainError('VALIDATION_ERROR', `text: must be at most ${PLAYGROUND_LIMITS.text} characters`);
        if (state.questions >= PLAYGROUND_LIMITS.questions) {
          throw new DomainError('CONFLICT', `This playground session has reached ${PLAYGROUND_LIMITS.questions} questions; start a new session`);
        }
        return [{ type: 'PlaygroundQuestionAsked', data: { questionId: command.questionId, text, by: command.by, at: command.now } }];
      }
      case 'RecordPlaygroundAnswer': {
        // Only a question still waiting gets an answer: recording it twice (or after a failure) adds nothing.
        if (!state.pending.includes(command.questionId)) return [];
        const { type: _type, now, ...answer } = command;
        return [{ type: 'PlaygroundAnswered', data: { ...answer, at: now } }];
      }
      case 'RecordPlaygroundFailure':
        if (!state.pending.includes(command.questionId)) return [];
        return [{ type: 'PlaygroundAnswerFailed', data: { questionId: command.questionId, reason: command.reason.slice(0, PLAYGROUND_LIMITS.reason) || 'unknown error', at: command.now } }];
    }
  },
};
