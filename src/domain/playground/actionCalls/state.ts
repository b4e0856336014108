import type { PlaygroundActionCallEvent } from './events.js';

export interface PlaygroundActionCallState {
  started: boolean;
  finished: boolean;
}

export const initialPlaygroundActionCallState: PlaygroundActionCallState = { started: false, finished: false };

export function evolvePlaygroundActionCall(state: PlaygroundActionCallState, event: PlaygroundActionCallEvent): PlaygroundActionCallState {
  switch (event.type) {
    case 'PlaygroundActionCallStarted':
      return { ...state, started: true };
    case 'PlaygroundActionCallFinished':
      return { ...state, finished: true };
  }
}
