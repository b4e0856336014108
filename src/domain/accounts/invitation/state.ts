import type { z } from 'zod';
import type { InvitationEvent, invitationEvents } from './events.js';

export type InvitationState =
  | { status: 'none' }
  | ({ status: 'pending' | 'accepted' | 'revoked' } & z.infer<typeof invitationEvents.InvitationCreated>);

export const initialInvitationState: InvitationState = { status: 'none' };

export function evolveInvitation(state: InvitationState, event: InvitationEvent): InvitationState {
  switch (event.type) {
    case 'InvitationCreated':
      return { status: 'pending', ...event.data };
    case 'InvitationAccepted':
      return state.status === 'pending' ? { ...state, status: 'accepted' } : state;
    case 'InvitationRevoked':
      return state.status === 'pending' ? { ...state, status: 'revoked' } : state;
  }
}
