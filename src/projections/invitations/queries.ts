import type { Role } from '../../domain/accounts/team/events.js';
import type { FindQuery, Page, ReadStore } from '../../ports/readStore.js';
import { INVITATIONS, type InvitationDoc } from './invitationsProjection.js';

/** The company's invitations not yet accepted or revoked (expired ones included), newest first. */
export async function listPendingInvitations(readStore: ReadStore, companyId: string, page: Pick<FindQuery, 'limit' | 'cursor'>): Promise<Page<InvitationDoc>> {
  return readStore.find<InvitationDoc>(INVITATIONS, {
    where: { companyId, status: 'pending' },
    orderBy: [{ field: 'createdAt', direction: 'desc' }],
    limit: page.limit,
    cursor: page.cursor,
  });
}

/**
 * Up to `limit` ids of the pending invitations `userId` sent, with `role` only those inviting with that role
 * (what their removal or demotion revokes, a page at a time).
 */
export async function pendingInvitationIdsSentBy(readStore: ReadStore, companyId: string, userId: string, limit: number, role?: Role): Promise<string[]> {
  const page = await readStore.find<InvitationDoc>(INVITATIONS, { where: { companyId, invitedBy: userId, status: 'pending', ...(role ? { role } : {}) }, limit });
  return page.items.map((d) => d.id);
}
