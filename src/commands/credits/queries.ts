import { creditsDecider, creditsStream } from '../../domain/credits/decider.js';
import type { EventStore } from '../../ports/eventStore.js';
import { loadState } from '../handleCommand.js';

/** The company's credit balance in micros, from its credits stream (strongly consistent: a top-up counts at once). */
export async function loadCreditBalance(eventStore: EventStore, companyId: string): Promise<number> {
  const { state } = await loadState(eventStore, creditsStream(companyId), creditsDecider);
  return state.balanceMicros;
}
