import { describe, expect, it } from 'vitest';
import { userDecider } from '../../../../../src/domain/accounts/user/decider.js';
import { type UserEvent } from '../../../../../src/domain/accounts/user/events.js';
import { specFor } from '../../../../support/gwt.js';

const U1 = '11111111-1111-4111-8111-111111111111';
const C1 = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc';
const T0 = '2026-01-01T00:00:00.000Z';

describe('superadmin (an operator command on an existing account)', () => {
  const user = specFor(userDecider);
  const registered: UserEvent = {
    type: 'UserRegistered',
    data: { userId: U1, email: 'root@example.com', passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$x$y', companyId: C1, companyKey: 1, createdAt: T0 },
  };
  const granted: UserEvent = { type: 'SuperadminGranted', data: { by: 'cli:ops', at: T0 } };
  const grant = { type: 'GrantSuperadmin', by: 'cli:ops', now: T0 } as const;
  const revoke = { type: 'RevokeSuperadmin', by: 'cli:ops', now: T0 } as const;

  it('a registered user is not a superadmin', () => {
    expect(user.given([registered]).state).toMatchObject({ status: 'active', isSuperadmin: false });
  });
  it('grants it to an existing account', () => {
    const state = user.given([registered]).when(grant).then([granted]);
    expect(state).toMatchObject({ isSuperadmin: true });
  });
  it('refuses an account that does not exist: nothing can be granted ahead of a registration', () => {
    user.given([]).when(grant).thenThrows('NOT_FOUND');
    user.given([]).when(revoke).thenThrows('NOT_FOUND');
  });
  it('granting twice records it once', () => {
    user.given([registered, granted]).when(grant).then([]);
  });
  it('revokes it; revoking a non-superadmin changes nothing', () => {
    const state = user.given([registered, granted]).when(revoke).then([{ type: 'SuperadminRevoked', data: { by: 'cli:ops', at: T0 } }]);
    expect(state).toMatchObject({ isSuperadmin: false });
    user.given([registered]).when(revoke).then([]);
  });
});
