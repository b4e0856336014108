import { replayDecider, replayStream } from '../../domain/replays/decider.js';
import type { ReplayStatus } from '../../domain/replays/events.js';
import type { EventStore } from '../../ports/eventStore.js';
import { loadState } from '../handleCommand.js';

/** The replay's status from its stream (strongly consistent), or null when missing or another company's. */
export async function loadReplayStatus(eventStore: EventStore, companyId: string, replayId: string): Promise<ReplayStatus | null> {
  const { state } = await loadState(eventStore, replayStream(replayId), replayDecider);
  return state.status !== 'none' && state.companyId === companyId ? state.status : null;
}
