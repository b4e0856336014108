import type { z } from 'zod';
import type { Lifecycle } from '../lifecycle.js';
import type { ApiTokenEvent, apiTokenEvents } from './events.js';

export type ApiTokenState =
  | { status: 'none' }
  | ({ status: Exclude<Lifecycle, 'none'>; lastUsedAt: string | null } & z.infer<typeof apiTokenEvents.ApiTokenIssued>);

export const initialApiTokenState: ApiTokenState = { status: 'none' };

export function evolveApiToken(state: ApiTokenState, event: ApiTokenEvent): ApiTokenState {
  switch (event.type) {
    case 'ApiTokenIssued':
      return { status: 'active', lastUsedAt: null, ...event.data };
    case 'ApiTokenUsed':
      return state.status === 'none' ? state : { ...state, lastUsedAt: event.data.at };
    case 'ApiTokenRevoked':
      return state.status === 'none' ? state : { ...state, status: 'deleted' };
  }
}
