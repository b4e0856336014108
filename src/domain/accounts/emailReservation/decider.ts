import type { Decider } from '../../decider.js';
import { DomainError } from '../../errors.js';
import type { EmailReservationEvent } from './events.js';
import { evolveEmailReservation, initialEmailReservationState, type EmailReservationState } from './state.js';

export type EmailReservationCommand =
  | { type: 'ReserveEmail'; userId: string; now: string }
  | { type: 'CompleteRegistration'; userId: string; companyId: string }
  | { type: 'ReleaseEmail'; userId: string }
  | { type: 'ReleaseRegisteredEmail'; userId: string; now: string };

export const STALE_RESERVATION_MS = 5 * 60_000;

export const emailReservationDecider: Decider<EmailReservationCommand, EmailReservationEvent, EmailReservationState> = {
  initialState: initialEmailReservationState,
  evolve: evolveEmailReservation,
  decide(command, state) {
    switch (command.type) {
      case 'ReserveEmail': {
        const stale =
          state.status === 'reserved' && Date.parse(command.now) - Date.parse(state.at) > STALE_RESERVATION_MS;
        if (state.status === 'free' || stale) {
          return [{ type: 'EmailReserved', data: { userId: command.userId, at: command.now } }];
        }
        throw new DomainError('EMAIL_TAKEN', 'This email is already registered');
      }
      case 'CompleteRegistration':
        if (state.status !== 'reserved' || state.userId !== command.userId) {
          throw new DomainError('EMAIL_TAKEN', 'The email reservation was lost');
        }
        return [{ type: 'RegistrationCompleted', data: { userId: command.userId, companyId: command.companyId } }];
      case 'ReleaseEmail':
        return state.status === 'reserved' && state.userId === command.userId
          ? [{ type: 'EmailReservationReleased', data: { userId: command.userId } }]
          : [];
      case 'ReleaseRegisteredEmail':
        return state.status === 'registered' && state.userId === command.userId
          ? [{ type: 'RegisteredEmailReleased', data: { userId: command.userId, at: command.now } }]
          : [];
    }
  },
};

export const normalizeEmail = (email: string) => email.trim().toLowerCase();
