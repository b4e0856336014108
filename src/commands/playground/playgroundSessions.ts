import { randomUUID } from 'node:crypto';
import { playgroundDecider, playgroundStream, type PlaygroundCommand } from '../../domain/playground/decider.js';
import { type PlaygroundActions, type PlaygroundEvent } from '../../domain/playground/events.js';
import { type PlaygroundState } from '../../domain/playground/state.js';
import type { Role } from '../../domain/accounts/team/events.js';
import { DomainError } from '../../domain/errors.js';
import type { EventStore } from '../../ports/eventStore.js';
import { handleCommand, loadState, toDomainEvent } from '../handleCommand.js';
import type { CommandDeps } from '../deps.js';

/** Agent playground sessions: one `playground-<sessionId>` stream each (see domain/playground). */

export interface Teammate {
  companyId: string;
  userId: string;
  /** Decides whether they may start, or ask in, a live session (the decider's LIVE_ACTION_ROLES). */
  role: Role;
}
const metadataOf = (t: Teammate) => ({ companyId: t.companyId, actor: `user:${t.userId}` });

/** `actions`: `live` lets the agent's action calls reach the company's endpoints (owners and admins: the decider checks). */
export async function startPlayground(deps: CommandDeps, teammate: Teammate, agentId: string, actions: PlaygroundActions = 'mocked') {
  const sessionId = randomUUID();
  const result = await handleCommand(
    deps.eventStore,
    playgroundStream(sessionId),
    playgroundDecider,
    { type: 'StartPlayground', role: teammate.role, sessionId, companyId: teammate.companyId, agentId, startedBy: `user:${teammate.userId}`, actions, now: deps.clock.now().toISOString() },
    { metadata: metadataOf(teammate) },
  );
  return { ...result, sessionId };
}

/** The session's state when it is this company's; NOT_FOUND otherwise (never revealing another company's). */
export async function loadOwnPlayground(eventStore: EventStore, companyId: string, sessionId: string): Promise<PlaygroundState & { sessionId: string; agentId: string }> {
  const { state } = await loadState(eventStore, playgroundStream(sessionId), playgroundDecider);
  if (state.sessionId === null || state.companyId !== companyId || state.agentId === null) throw new DomainError('NOT_FOUND', 'Playground session not found');
  return state as PlaygroundState & { sessionId: string; agentId: string };
}

/** Every event of a session, in order: bounded, as a session holds at most PLAYGROUND_LIMITS.questions questions. */
export async function readPlaygroundEvents(eventStore: EventStore, sessionId: string, options: { newest?: number } = {}): Promise<PlaygroundEvent[]> {
  const recorded = options.newest
    ? (await eventStore.readStream(playgroundStream(sessionId), { direction: 'backwards', maxCount: options.newest })).reverse()
    : await eventStore.readStream(playgroundStream(sessionId));
  return recorded.map((e) => toDomainEvent<PlaygroundEvent>(e));
}

export function playgroundCommand(deps: CommandDeps, teammate: Teammate, sessionId: string, command: PlaygroundCommand) {
  return handleCommand(deps.eventStore, playgroundStream(sessionId), playgroundDecider, command, { metadata: metadataOf(teammate) });
}
