import type { FindQuery, Page, ReadStore } from '../../ports/readStore.js';
import { creditBalance } from '../credits/queries.js';
import { COMPANIES, type CompanyDoc } from './companiesProjection.js';

/** Every company, newest first, with its credit balance in micros (one balance read per company of the page). */
export async function listCompaniesWithBalances(
  readStore: ReadStore,
  page: Pick<FindQuery, 'limit' | 'cursor'>,
): Promise<Page<{ company: CompanyDoc; balanceMicros: number }>> {
  const found = await readStore.find<CompanyDoc>(COMPANIES, { orderBy: [{ field: 'createdAt', direction: 'desc' }], limit: page.limit, cursor: page.cursor });
  const items = await Promise.all(found.items.map(async (company) => ({ company, balanceMicros: await creditBalance(readStore, company.id) })));
  return { items, nextCursor: found.nextCursor };
}

/** The company with this integer key (the id the API shows), or null. */
export async function findCompanyByKey(readStore: ReadStore, companyKey: number): Promise<CompanyDoc | null> {
  const page = await readStore.find<CompanyDoc>(COMPANIES, { where: { companyKey }, limit: 1 });
  return page.items[0] ?? null;
}
