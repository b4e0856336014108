import { randomUUID } from 'node:crypto';
import { conversationDecider, conversationStream } from '../../domain/conversations/decider.js';
import { resolveMentions, type MentionableTeammate } from '../../domain/conversations/notes.js';
import { DomainError } from '../../domain/errors.js';
import type { CommandDeps } from '../deps.js';
import { handleCommand, loadState } from '../handleCommand.js';

type Actor = { companyId: string; userId: string };

/**
 * A teammate's internal note on a conversation of their company (another company's is NOT_FOUND). Its @names
 * are resolved against `team` (the company's current teammates), so the event records whom it mentions by id.
 * `keyedId`: from the request's Idempotency-Key (idForKey), so a retried request names the note already stored
 * and records nothing (the decider remembers the newest note ids).
 */
export async function addNote(deps: CommandDeps, actor: Actor, conversationId: string, text: string, team: readonly MentionableTeammate[], keyedId?: string) {
  const stream = conversationStream(conversationId);
  const { state } = await loadState(deps.eventStore, stream, conversationDecider);
  if (!state.exists || state.companyId !== actor.companyId) throw new DomainError('NOT_FOUND', 'Conversation not found');
  const noteId = keyedId ?? randomUUID();
  const mentions = resolveMentions(text, team);
  const result = await handleCommand(
    deps.eventStore,
    stream,
    conversationDecider,
    { type: 'AddNote', noteId, authorId: actor.userId, text, mentions, now: deps.clock.now().toISOString() },
    { metadata: { companyId: actor.companyId, actor: `user:${actor.userId}` } },
  );
  return { ...result, noteId };
}
