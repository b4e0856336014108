import type { EmailReservationEvent } from './events.js';

/**
 * Not an existence flag but a three-step lifecycle, so it keeps its own names rather than the accounts
 * domain's `none | active` shape: `free` → `reserved` (a registration or an invitation acceptance is under
 * way, and may go stale) → `registered` (login trusts the email) → `free` again when the member is removed.
 */
export type EmailReservationState =
  | { status: 'free' }
  | { status: 'reserved'; userId: string; at: string }
  | { status: 'registered'; userId: string; companyId: string };

export const initialEmailReservationState: EmailReservationState = { status: 'free' };

export function evolveEmailReservation(state: EmailReservationState, event: EmailReservationEvent): EmailReservationState {
  switch (event.type) {
    case 'EmailReserved':
      return { status: 'reserved', userId: event.data.userId, at: event.data.at };
    case 'RegistrationCompleted':
      return { status: 'registered', userId: event.data.userId, companyId: event.data.companyId };
    case 'EmailReservationReleased':
      return state.status === 'reserved' && state.userId === event.data.userId ? { status: 'free' } : state;
    case 'RegisteredEmailReleased':
      return state.status === 'registered' && state.userId === event.data.userId ? { status: 'free' } : state;
  }
}
