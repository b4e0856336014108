import type { ConversationEvent } from '../domain/conversations/events.js';
import type { EventStore } from '../ports/eventStore.js';
import { toDomainEvent } from '../commands/handleCommand.js';

/** Events read per page, newest first. */
const PAGE = 64;
/** However long the conversation, a prompt never looks further back than this. */
const MAX_EVENTS_BACK = 1024;

/**
 * The tail of a conversation a reply needs: the unanswered customer messages and the turns before them, read
 * backwards in pages from the end of the stream and stopping as soon as both are found. Its cost depends on
 * the prompt's size, never on the conversation's length.
 */
export async function readRecentHistory(
  store: EventStore,
  stream: string,
  want: { unanswered: readonly string[]; turns: number },
): Promise<ConversationEvent[]> {
  const missing = new Set(want.unanswered);
  const newestFirst: ConversationEvent[] = [];
  let turns = 0;
  let before: bigint | undefined;
  while (newestFirst.length < MAX_EVENTS_BACK) {
    const page = await store.readStream(stream, { direction: 'backwards', maxCount: PAGE, ...(before !== undefined ? { fromRevision: before } : {}) });
    for (const recorded of page) {
      const e = toDomainEvent<ConversationEvent>(recorded);
      newestFirst.push(e);
      if (e.type === 'MessageReceived' && missing.has(e.data.messageId)) missing.delete(e.data.messageId);
      else if (isTurn(e)) turns++;
    }
    const oldest = page.at(-1);
    if (page.length < PAGE || !oldest || oldest.revision === 0n) break;
    if (missing.size === 0 && turns >= want.turns) break;
    before = oldest.revision - 1n;
  }
  return newestFirst.reverse();
}

const isTurn = (e: ConversationEvent) =>
  e.type === 'MessageReceived' || e.type === 'AgentReplied' || e.type === 'OperatorMessageSent' || e.type === 'OperatorMessageRecorded';
