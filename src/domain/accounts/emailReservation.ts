import { z } from 'zod';
import type { Decider } from '../decider.js';
import { DomainError } from '../errors.js';

/**
 * Case-insensitive email uniqueness, enforced by the event store: one stream per normalised email,
 * created with expected revision "no stream". A reservation whose registration never completed
 * (a crash between streams) can be taken over once it is stale, so an email is never locked forever.
 */
export const emailReservationEvents = {
  EmailReserved: z.object({ userId: z.uuid(), at: z.iso.datetime() }),
  RegistrationCompleted: z.object({ userId: z.uuid(), companyId: z.uuid() }),
  EmailReservationReleased: z.object({ userId: z.uuid() }),
  /** The account was removed from its team: the email may register again or be invited anew. */
  RegisteredEmailReleased: z.object({ userId: z.uuid(), at: z.iso.datetime() }),
};
type Events = typeof emailReservationEvents;
export type EmailReservationEvent = { [K in keyof Events]: { type: K; data: z.infer<Events[K]> } }[keyof Events];

/**
 * Not an existence flag but a three-step lifecycle, so it keeps its own names rather than the accounts
 * domain's `none | active` shape: `free` → `reserved` (a registration or an invitation acceptance is under
 * way, and may go stale) → `registered` (login trusts the email) → `free` again when the member is removed.
 */
export type EmailReservationState =
  | { status: 'free' }
  | { status: 'reserved'; userId: string; at: string }
  | { status: 'registered'; userId: string; companyId: string };

export type EmailReservationCommand =
  | { type: 'ReserveEmail'; userId: string; now: string }
  | { type: 'CompleteRegistration'; userId: string; companyId: string }
  | { type: 'ReleaseEmail'; userId: string }
  | { type: 'ReleaseRegisteredEmail'; userId: string; now: string };

export const STALE_RESERVATION_MS = 5 * 60_000;

export const emailReservationDecider: Decider<EmailReservationCommand, EmailReservationEvent, EmailReservationState> = {
  initialState: { status: 'free' },
  evolve(state, event) {
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
  },
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
