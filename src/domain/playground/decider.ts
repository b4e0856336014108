import type { Role } from '../accounts/team/events.js';
import type { Decider } from '../decider.js';
import { DomainError } from '../errors.js';
import { PLAYGROUND_LIMITS, type PlaygroundActions, type PlaygroundAnswer, type PlaygroundEvent } from './events.js';
import { evolvePlayground, initialPlaygroundState, type PlaygroundState } from './state.js';

export type PlaygroundCommand =
  | { type: 'StartPlayground'; role: Role; sessionId: string; companyId: string; agentId: string; startedBy: string; actions?: PlaygroundActions; now: string }
  | { type: 'AskPlaygroundQuestion'; role: Role; questionId: string; text: string; by: string; now: string }
  | ({ type: 'RecordPlaygroundAnswer'; now: string } & Omit<PlaygroundAnswer, 'at'>)
  | { type: 'RecordPlaygroundFailure'; questionId: string; reason: string; now: string };

/**
 * Live action calls reach the company's systems with its stored secrets: only these roles start a live session,
 * and only they ask in one (another teammate could otherwise use an owner's session to make the calls).
 */
export const LIVE_ACTION_ROLES: readonly Role[] = ['owner', 'admin'];
const LIVE_REFUSED = 'Live action calls from the playground need an owner or an admin; a mocked session answers with sample responses';

const PLAYGROUND_PREFIX = 'playground-';
export const playgroundStream = (sessionId: string) => `${PLAYGROUND_PREFIX}${sessionId}`;
export const playgroundIdOfStream = (stream: string) => stream.slice(PLAYGROUND_PREFIX.length);

export const playgroundDecider: Decider<PlaygroundCommand, PlaygroundEvent, PlaygroundState> = {
  initialState: initialPlaygroundState,
  evolve: evolvePlayground,
  decide(command, state) {
    switch (command.type) {
      case 'StartPlayground':
        if (state.sessionId !== null) throw new DomainError('CONFLICT', 'This playground session already exists');
        if (command.actions === 'live' && !LIVE_ACTION_ROLES.includes(command.role)) throw new DomainError('FORBIDDEN', LIVE_REFUSED);
        return [
          {
            type: 'PlaygroundStarted',
            data: {
              sessionId: command.sessionId,
              companyId: command.companyId,
              agentId: command.agentId,
              startedBy: command.startedBy,
              ...(command.actions === 'live' ? { actions: 'live' as const } : {}),
              at: command.now,
            },
          },
        ];
      case 'AskPlaygroundQuestion': {
        if (state.sessionId === null) throw new DomainError('NOT_FOUND', 'Playground session not found');
        if (state.actions === 'live' && !LIVE_ACTION_ROLES.includes(command.role)) throw new DomainError('FORBIDDEN', LIVE_REFUSED);
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
