import { conversationDecider, conversationStream, type ConversationCommand } from '../../domain/conversations/decider.js';
import { DomainError } from '../../domain/errors.js';
import type { Priority } from '../../domain/conversations/triage.js';
import { handleCommand, loadState } from '../handleCommand.js';
import type { CommandDeps } from '../deps.js';

type Actor = { companyId: string; userId: string };

/** Who the snooze sweep records as the actor of a snooze that ended on time. */
export const SNOOZE_SWEEP = 'system:snooze';

async function onConversation(deps: CommandDeps, companyId: string, conversationId: string, command: ConversationCommand, actor: string) {
  const stream = conversationStream(conversationId);
  const { state } = await loadState(deps.eventStore, stream, conversationDecider);
  // Another company's conversation is answered like a missing one.
  if (!state.exists || state.companyId !== companyId) throw new DomainError('NOT_FOUND', 'Conversation not found');
  return handleCommand(deps.eventStore, stream, conversationDecider, command, { metadata: { companyId, actor } });
}

const now = (deps: CommandDeps) => deps.clock.now().toISOString();
const by = (actor: Actor) => `user:${actor.userId}`;

export const setConversationPriority = (deps: CommandDeps, actor: Actor, conversationId: string, priority: Priority) =>
  onConversation(deps, actor.companyId, conversationId, { type: 'SetPriority', priority, by: by(actor), now: now(deps) }, by(actor));

/** Out of the open queues until `until` (the sweep, a customer message or a teammate brings it back). */
export const snoozeConversation = (deps: CommandDeps, actor: Actor, conversationId: string, until: string) =>
  onConversation(deps, actor.companyId, conversationId, { type: 'SnoozeConversation', until, by: by(actor), now: now(deps) }, by(actor));

/** A teammate ends the snooze early. */
export const unsnoozeConversation = (deps: CommandDeps, actor: Actor, conversationId: string) =>
  onConversation(deps, actor.companyId, conversationId, { type: 'WakeConversation', by: by(actor), now: now(deps) }, by(actor));

/** The sweep's wake of a snooze whose time has come (records nothing when it was moved later or ended meanwhile). */
export const wakeDueSnooze = (deps: CommandDeps, companyId: string, conversationId: string) =>
  onConversation(deps, companyId, conversationId, { type: 'WakeConversation', by: null, now: now(deps) }, SNOOZE_SWEEP);
