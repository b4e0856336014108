import type { Decider } from '../../decider.js';
import { ACTION_CALL_LIMITS } from '../../conversations/actionCalls.js';
import { DomainError } from '../../errors.js';
import type { PlaygroundActionCallEvent } from './events.js';
import { evolvePlaygroundActionCall, initialPlaygroundActionCallState, type PlaygroundActionCallState } from './state.js';

type Started = Extract<PlaygroundActionCallEvent, { type: 'PlaygroundActionCallStarted' }>['data'];
type Finished = Extract<PlaygroundActionCallEvent, { type: 'PlaygroundActionCallFinished' }>['data'];

export type PlaygroundActionCallCommand =
  | ({ type: 'StartPlaygroundActionCall'; now: string } & Omit<Started, 'at'>)
  | ({ type: 'FinishPlaygroundActionCall'; now: string } & Omit<Finished, 'at'>);

const PREFIX = 'playgroundcall-';
export const playgroundActionCallStream = (callId: string) => `${PREFIX}${callId}`;

const cut = (text: string | null, max: number) => (text === null || text.length <= max ? text : `${text.slice(0, max - 1)}…`);

/** Once each: a call is started once (a second start is refused: it would be a second HTTP call), finished once. */
export const playgroundActionCallDecider: Decider<PlaygroundActionCallCommand, PlaygroundActionCallEvent, PlaygroundActionCallState> = {
  initialState: initialPlaygroundActionCallState,
  evolve: evolvePlaygroundActionCall,
  decide(command, state) {
    switch (command.type) {
      case 'StartPlaygroundActionCall': {
        if (state.started) throw new DomainError('CONFLICT', 'This playground action call was already made');
        const { type: _type, now, ...data } = command;
        return [{ type: 'PlaygroundActionCallStarted', data: { ...data, at: now } }];
      }
      case 'FinishPlaygroundActionCall': {
        if (!state.started || state.finished) return [];
        const { type: _type, now, ...data } = command;
        const response = cut(data.response, ACTION_CALL_LIMITS.response);
        const error = cut(data.error, ACTION_CALL_LIMITS.error);
        return [{ type: 'PlaygroundActionCallFinished', data: { ...data, durationMs: Math.max(0, Math.round(data.durationMs)), response, error, at: now } }];
      }
    }
  },
};
