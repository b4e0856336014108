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

/** Up to `limit` ids of the pending invitations `userId` sent (what their removal revokes, a page at a time). */
export async function pendingInvitationIdsSentBy(readStore: ReadStore, companyId: string, userId: string, limit: number): Promise<string[]> {
  const page = await readStore.find<InvitationDoc>(INVITATIONS, { where: { companyId, invitedBy: userId, status: 'pending' }, limit });
  return page.items.map((d) => d.id);
}
