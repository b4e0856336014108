import { conversationStream } from '../../domain/conversations/decider.js';
import type { EventStore, RecordedEvent } from '../../ports/eventStore.js';

/** Every event of the conversation's stream, in order (the audit replay). */
export async function readConversationEvents(eventStore: EventStore, conversationId: string): Promise<RecordedEvent[]> {
  return eventStore.readStream(conversationStream(conversationId));
}
