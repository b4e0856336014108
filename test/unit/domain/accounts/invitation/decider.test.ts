import { describe, it } from 'vitest';
import { invitationDecider } from '../../../../../src/domain/accounts/invitation/decider.js';
import { type InvitationEvent } from '../../../../../src/domain/accounts/invitation/events.js';
import { type Role } from '../../../../../src/domain/accounts/team/events.js';
import { specFor } from '../../../../support/gwt.js';

const T0 = '2026-01-01T00:00:00.000Z';
const OWNER = '11111111-1111-4111-8111-111111111111';
const AGENT = '33333333-3333-4333-8333-333333333333';
const COMPANY = '44444444-4444-4444-8444-444444444444';
const INV = '55555555-5555-4555-8555-555555555555';
const h = (c: string) => c.repeat(64);

describe('invitation', () => {
  const invitation = specFor(invitationDecider);
  const created: InvitationEvent = {
    type: 'InvitationCreated',
    data: { invitationId: INV, companyId: COMPANY, email: 'x@example.com', role: 'agent', tokenHash: h('a'), invitedBy: OWNER, createdAt: T0, expiresAt: '2026-01-08T00:00:00.000Z' },
  };
  const accept = (tokenHash: string, now = '2026-01-02T00:00:00.000Z', inviterRole: Role | null = 'owner') =>
    ({ type: 'AcceptInvitation', tokenHash, userId: AGENT, now, inviterRole }) as const;
  const createdAs = (role: Role): InvitationEvent => ({ ...created, data: { ...created.data, role } }) as InvitationEvent;

  it('is accepted once, with its token', () => {
    invitation.given([created]).when(accept(h('a'))).then([{ type: 'InvitationAccepted', data: { userId: AGENT, at: '2026-01-02T00:00:00.000Z' } }]);
    invitation.given([created, { type: 'InvitationAccepted', data: { userId: AGENT, at: T0 } }]).when(accept(h('a'))).thenThrows('INVITATION_USED');
  });
  it('a wrong token is not found; revoked and expired ones are gone', () => {
    invitation.given([created]).when(accept(h('b'))).thenThrows('NOT_FOUND');
    invitation.given([]).when(accept(h('a'))).thenThrows('NOT_FOUND');
    invitation.given([created, { type: 'InvitationRevoked', data: { by: OWNER, at: T0 } }]).when(accept(h('a'))).thenThrows('INVITATION_REVOKED');
    invitation.given([created]).when(accept(h('a'), '2026-01-08T00:00:00.000Z')).thenThrows('INVITATION_EXPIRED');
  });
  it("another company cannot revoke it", () => {
    invitation.given([created]).when({ type: 'RevokeInvitation', companyId: OWNER, by: OWNER, now: T0 }).thenThrows('NOT_FOUND');
  });
  it("dies with its inviter's power: refused once the inviter is removed, or could no longer send it (410 INVITATION_REVOKED)", () => {
    const at = '2026-01-02T00:00:00.000Z';
    // Removed: no invitation of theirs is accepted.
    invitation.given([created]).when(accept(h('a'), at, null)).thenThrows('INVITATION_REVOKED');
    // Demoted to agent: agents invite nobody.
    invitation.given([created]).when(accept(h('a'), at, 'agent')).thenThrows('INVITATION_REVOKED');
    // An owner demoted to admin: their owner invitation is refused, their admin invitation still holds.
    invitation.given([createdAs('owner')]).when(accept(h('a'), at, 'admin')).thenThrows('INVITATION_REVOKED');
    invitation.given([createdAs('admin')]).when(accept(h('a'), at, 'admin')).then([{ type: 'InvitationAccepted', data: { userId: AGENT, at } }]);
  });
});
