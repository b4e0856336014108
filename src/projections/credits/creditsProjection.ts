import type { CreditEvent } from '../../domain/credits/credits.js';
import type { Doc } from '../../ports/readStore.js';
import type { Projection } from '../projection.js';

export interface CreditBalanceDoc extends Doc {
  balanceMicros: number;
}
export interface LedgerEntryDoc extends Doc {
  companyId: string;
  at: string;
  deltaMicros: number;
  reason: string;
  conversationId: string | null;
}

export const CREDIT_BALANCES = 'creditBalances';
export const CREDIT_LEDGER = 'creditLedger';

export const creditsProjection: Projection = {
  name: 'credits',
  collections: [
    { name: CREDIT_BALANCES, indexes: [] },
    { name: CREDIT_LEDGER, indexes: ['companyId', 'at'] },
  ],
  eventTypes: ['CreditsGranted', 'CreditsConsumed'],
  async apply(event, ctx) {
    const e = event as unknown as CreditEvent;
    const companyId = event.stream.slice('credits-'.length);
    const balance = (await ctx.get<CreditBalanceDoc>(CREDIT_BALANCES, companyId)) ?? { id: companyId, balanceMicros: 0 };
    const delta = e.type === 'CreditsGranted' ? e.data.amountMicros : -e.data.amountMicros;
    ctx.put(CREDIT_BALANCES, { ...balance, balanceMicros: balance.balanceMicros + delta });
    ctx.put(CREDIT_LEDGER, {
      id: event.id,
      companyId,
      at: e.data.at,
      deltaMicros: delta,
      reason: e.type === 'CreditsGranted' ? e.data.reason : `AI reply (${e.data.model}, ${e.data.inputTokens}+${e.data.outputTokens} tokens)`,
      conversationId: e.type === 'CreditsConsumed' ? e.data.conversationId : null,
    } satisfies LedgerEntryDoc);
  },
};
