import { supportTeamsDecider, supportTeamsStream } from '../../domain/supportTeams/decider.js';
import type { SupportTeamsState } from '../../domain/supportTeams/state.js';
import type { EventStore } from '../../ports/eventStore.js';
import { loadState } from '../handleCommand.js';

/**
 * The company's support teams and routes as stored now (the stream is the company's own, so another company's
 * team is unreachable: it reads as missing).
 */
export async function loadSupportTeams(eventStore: EventStore, companyId: string): Promise<SupportTeamsState> {
  const { state } = await loadState(eventStore, supportTeamsStream(companyId), supportTeamsDecider);
  return state;
}
