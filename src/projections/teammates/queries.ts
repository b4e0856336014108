import type { FindQuery, Page, ReadStore } from '../../ports/readStore.js';
import { TEAMMATES, type TeammateDoc } from './teammatesProjection.js';

/** The company's current teammates, in the order they joined. */
export async function listTeammates(readStore: ReadStore, companyId: string, page: Pick<FindQuery, 'limit' | 'cursor'>): Promise<Page<TeammateDoc>> {
  return readStore.find<TeammateDoc>(TEAMMATES, {
    where: { companyId, status: 'active' },
    orderBy: [{ field: 'joinedAt', direction: 'asc' }],
    limit: page.limit,
    cursor: page.cursor,
  });
}

/** The teammate when they joined this company (removed ones included); null otherwise. */
export async function findCompanyTeammate(readStore: ReadStore, companyId: string, userId: string): Promise<TeammateDoc | null> {
  const doc = await readStore.get<TeammateDoc>(TEAMMATES, userId);
  return doc && doc.companyId === companyId ? doc : null;
}
