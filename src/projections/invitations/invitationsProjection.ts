import { invitationEvents } from '../../domain/accounts/invitation/events.js';
import type { Role } from '../../domain/accounts/team/events.js';
import type { Doc } from '../../ports/readStore.js';
import { defineProjection } from '../projection.js';

/** The Team page's invitations. Holds neither the token nor its hash: accepting reads the invitation's stream. */
export interface InvitationDoc extends Doc {
  companyId: string;
  email: string;
  role: Role;
  invitedBy: string;
  createdAt: string;
  expiresAt: string;
  status: 'pending' | 'accepted' | 'revoked';
}

export const INVITATIONS = 'invitations';

export const invitationsProjection = defineProjection(invitationEvents, {
  name: 'invitations',
  collections: [{ name: INVITATIONS, indexes: [['companyId', 'status', 'createdAt'], ['companyId', 'invitedBy', 'status', 'role']] }],
  eventTypes: ['InvitationCreated', 'InvitationAccepted', 'InvitationRevoked'],
  async apply(event, ctx) {
    if (event.type === 'InvitationCreated') {
      const { tokenHash: _secret, invitationId, ...rest } = event.data;
      ctx.put(INVITATIONS, { id: invitationId, ...rest, status: 'pending' } satisfies InvitationDoc);
      return;
    }
    const doc = await ctx.get<InvitationDoc>(INVITATIONS, event.stream.slice('invitation-'.length));
    if (doc) ctx.put(INVITATIONS, { ...doc, status: event.type === 'InvitationAccepted' ? 'accepted' : 'revoked' });
  },
});
