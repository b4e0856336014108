import { describe, expect, it } from 'vitest';
import { emailReservationDecider } from '../../../../../src/domain/accounts/emailReservation/decider.js';
import { type EmailReservationEvent } from '../../../../../src/domain/accounts/emailReservation/events.js';
import { specFor } from '../../../../support/gwt.js';

const U1 = '11111111-1111-4111-8111-111111111111';
const U2 = '22222222-2222-4222-8222-222222222222';
const C1 = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc';
const T0 = '2026-01-01T00:00:00.000Z';
const ADMIN = '22222222-2222-4222-8222-222222222222';
const AGENT = '33333333-3333-4333-8333-333333333333';
const COMPANY = '44444444-4444-4444-8444-444444444444';

describe('registration', () => {
  const email = specFor(emailReservationDecider);
  const reserved: EmailReservationEvent = { type: 'EmailReserved', data: { userId: U1, at: T0 } };
  it('reserves a free email', () => {
    email.given([]).when({ type: 'ReserveEmail', userId: U1, now: T0 }).then([reserved]);
  });
  it('refuses an email already registered', () => {
    email
      .given([reserved, { type: 'RegistrationCompleted', data: { userId: U1, companyId: C1 } }])
      .when({ type: 'ReserveEmail', userId: U2, now: '2026-02-01T00:00:00.000Z' })
      .thenThrows('EMAIL_TAKEN');
  });
  it('refuses an email reserved moments ago by a registration still running', () => {
    email.given([reserved]).when({ type: 'ReserveEmail', userId: U2, now: '2026-01-01T00:01:00.000Z' }).thenThrows('EMAIL_TAKEN');
  });
  it('takes over a reservation left stale by a registration that never completed', () => {
    email
      .given([reserved])
      .when({ type: 'ReserveEmail', userId: U2, now: '2026-01-01T00:06:00.000Z' })
      .then([{ type: 'EmailReserved', data: { userId: U2, at: '2026-01-01T00:06:00.000Z' } }]);
  });
  it('completes only the registration holding the reservation', () => {
    email.given([reserved]).when({ type: 'CompleteRegistration', userId: U2, companyId: C1 }).thenThrows('EMAIL_TAKEN');
    email.given([reserved]).when({ type: 'CompleteRegistration', userId: U1, companyId: C1 }).then([{ type: 'RegistrationCompleted', data: { userId: U1, companyId: C1 } }]);
  });
  it('releases a reservation after a failed registration, and ignores a release by someone else', () => {
    email.given([reserved]).when({ type: 'ReleaseEmail', userId: U1 }).then([{ type: 'EmailReservationReleased', data: { userId: U1 } }]);
    email.given([reserved]).when({ type: 'ReleaseEmail', userId: U2 }).then([]);
  });
});

describe('email reservation', () => {
  const email = specFor(emailReservationDecider);
  it('a removed member’s email is released and can be reserved again', () => {
    const history = [
      { type: 'EmailReserved', data: { userId: AGENT, at: T0 } },
      { type: 'RegistrationCompleted', data: { userId: AGENT, companyId: COMPANY } },
    ] as const;
    email.given([...history]).when({ type: 'ReserveEmail', userId: ADMIN, now: T0 }).thenThrows('EMAIL_TAKEN');
    const released = email.given([...history]).when({ type: 'ReleaseRegisteredEmail', userId: AGENT, now: T0 }).then([{ type: 'RegisteredEmailReleased', data: { userId: AGENT, at: T0 } }]);
    expect(released).toEqual({ status: 'free' });
  });
});
