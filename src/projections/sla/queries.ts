import type { ReadStore } from '../../ports/readStore.js';
import { addDays, daysBetween } from '../../domain/localDay.js';
import { SLA_KINDS } from '../../domain/conversations/slaClock.js';
import { emptySlaCounts, SLA_CONVERSATIONS, SLA_DAYS, slaDayId, type SlaConversationDoc, type SlaCounts, type SlaDayDoc } from './slaProjection.js';

/** The conversation's running SLA clocks (null: the read model has not seen it). */
export async function conversationSla(readStore: ReadStore, conversationId: string): Promise<SlaConversationDoc | null> {
  return readStore.get<SlaConversationDoc>(SLA_CONVERSATIONS, conversationId);
}

/** Targets met and breached per local day from `from` to `to` (inclusive), and their totals: one read per day. */
export async function slaReport(readStore: ReadStore, companyId: string, from: string, to: string): Promise<{ totals: SlaCounts; days: (SlaCounts & { date: string })[] }> {
  const dates = Array.from({ length: daysBetween(from, to) }, (_, i) => addDays(from, i));
  const docs = await Promise.all(dates.map((date) => readStore.get<SlaDayDoc>(SLA_DAYS, slaDayId(companyId, date))));
  const totals = emptySlaCounts();
  const days = dates.map((date, i) => {
    const doc = docs[i];
    const counts = emptySlaCounts();
    for (const kind of SLA_KINDS) {
      counts[kind] = { met: doc?.[kind].met ?? 0, breached: doc?.[kind].breached ?? 0 };
      totals[kind].met += counts[kind].met;
      totals[kind].breached += counts[kind].breached;
    }
    return { date, ...counts };
  });
  return { totals, days };
}
