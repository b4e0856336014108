import type { FindQuery, Page, ReadStore } from '../../ports/readStore.js';
import { ACTIONS, type ActionDoc } from './actionsProjection.js';

/** The company's actions, by name. */
export async function listActions(readStore: ReadStore, companyId: string, page: Pick<FindQuery, 'limit' | 'cursor'>): Promise<Page<ActionDoc>> {
  return readStore.find<ActionDoc>(ACTIONS, {
    where: { companyId },
    orderBy: [{ field: 'name', direction: 'asc' }],
    limit: page.limit,
    cursor: page.cursor ?? null,
  });
}
