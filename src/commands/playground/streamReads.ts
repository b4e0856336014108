import type { PlaygroundEvent } from '../../domain/playground/events.js';
import type { PlaygroundState } from '../../domain/playground/state.js';
import type { EventStore } from '../../ports/eventStore.js';
import { loadOwnPlayground, readPlaygroundEvents } from './playgroundSessions.js';

export interface PlaygroundSession {
  state: PlaygroundState & { sessionId: string; agentId: string };
  /** Every event of the session, in order (a session is short and read whole). */
  events: PlaygroundEvent[];
}

/** The company's playground session from its stream, with its events; NOT_FOUND when it is not this company's. */
export async function loadPlaygroundSession(eventStore: EventStore, companyId: string, sessionId: string): Promise<PlaygroundSession> {
  const state = await loadOwnPlayground(eventStore, companyId, sessionId);
  const events = await readPlaygroundEvents(eventStore, sessionId);
  return { state, events };
}
