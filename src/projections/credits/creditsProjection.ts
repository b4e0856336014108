import { creditEvents } from '../../domain/credits/events.js';
import type { Doc } from '../../ports/readStore.js';
import { defineProjection } from '../projection.js';

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

export const creditsProjection = defineProjection(creditEvents, {
  name: 'credits',
  collections: [
    { name: CREDIT_BALANCES, indexes: [] },
    { name: CREDIT_LEDGER, indexes: [['companyId', 'at']] },
  ],
  eventTypes: ['CreditsGranted', 'CreditsConsumed'],
  async apply(event, ctx) {
    const companyId = event.stream.slice('credits-'.length);
    const balance = (await ctx.get<CreditBalanceDoc>(CREDIT_BALANCES, companyId)) ?? { id: companyId, balanceMicros: 0 };
    const delta = event.type === 'CreditsGranted' ? event.data.amountMicros : -event.data.amountMicros;
    ctx.put(CREDIT_BALANCES, { ...balance, balanceMicros: balance.balanceMicros + delta });
    ctx.put(CREDIT_LEDGER, {
      id: event.id,
      companyId,
      at: event.data.at,
      deltaMicros: delta,
      reason:
        event.type === 'CreditsGranted'
          ? event.data.reason
          : `${event.data.replayId ? 'Replay answer' : event.data.testRunId ? (event.data.testAnswer ? 'Test answer' : 'Test judge') : event.data.playgroundSessionId ? 'Playground answer' : 'AI reply'} (${event.data.model}, ${event.data.inputTokens}+${event.data.outputTokens} tokens)`,
      conversationId: event.type === 'CreditsConsumed' && event.data.conversationId ? event.data.conversationId : null,
    } satisfies LedgerEntryDoc);
  },
});
