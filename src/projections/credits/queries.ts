import type { FindQuery, Page, ReadStore } from '../../ports/readStore.js';
import { CREDIT_BALANCES, CREDIT_LEDGER, type CreditBalanceDoc, type LedgerEntryDoc } from './creditsProjection.js';

/** The company's credit balance in micros as the read model has it (0 before any grant). */
export async function creditBalance(readStore: ReadStore, companyId: string): Promise<number> {
  return (await readStore.get<CreditBalanceDoc>(CREDIT_BALANCES, companyId))?.balanceMicros ?? 0;
}

/** The company's balance and its ledger, newest entry first. */
export async function creditsWithLedger(
  readStore: ReadStore,
  companyId: string,
  page: Pick<FindQuery, 'limit' | 'cursor'>,
): Promise<{ balanceMicros: number; ledger: Page<LedgerEntryDoc> }> {
  const [balanceMicros, ledger] = await Promise.all([
    creditBalance(readStore, companyId),
    readStore.find<LedgerEntryDoc>(CREDIT_LEDGER, { where: { companyId }, orderBy: [{ field: 'at', direction: 'desc' }], limit: page.limit, cursor: page.cursor }),
  ]);
  return { balanceMicros, ledger };
}
