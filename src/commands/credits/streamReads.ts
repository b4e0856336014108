import { chargeDecider, chargeStream } from '../../domain/credits/charge/decider.js';
import { creditsDecider, creditsStream } from '../../domain/credits/decider.js';
import type { EventStore } from '../../ports/eventStore.js';
import { loadState } from '../handleCommand.js';

/** The company's credit balance in micros, from its credits stream (strongly consistent: a top-up counts at once). */
export async function loadCreditBalance(eventStore: EventStore, companyId: string): Promise<number> {
  const { state } = await loadCredits(eventStore, companyId);
  return state.balanceMicros;
}

/** The company's credits state and the stream's revision (-1n before its first event). */
export const loadCredits = (eventStore: EventStore, companyId: string) => loadState(eventStore, creditsStream(companyId), creditsDecider);

/** The guard of one reply's charge: where its last attempt put the charge, and the guard stream's revision. */
export const loadChargeGuard = (eventStore: EventStore, replyId: string) => loadState(eventStore, chargeStream(replyId), chargeDecider);

/** Whether the event at `revision` of the company's credits stream is the charge with this id: one event read. */
export async function chargedAt(eventStore: EventStore, companyId: string, revision: bigint, chargeId: string): Promise<boolean> {
  const [event] = await eventStore.readStream(creditsStream(companyId), { fromRevision: revision, maxCount: 1 });
  return event?.revision === revision && event.id === chargeId;
}
