import type { EventStore, RecordedEvent } from '../../src/ports/eventStore.js';

/**
 * What "nothing partial was stored" means, checked over the whole event store after a fault or a fuzz run:
 * - every event passes its schema (the server's store validates on read: a bad one throws here);
 * - every stream's revisions run 0, 1, 2, … without a gap;
 * - a conversation stream starts with its one ConversationStarted, and every message event refers to a
 *   message the stream holds (a reply to received messages, a delivery to a reply or operator message).
 * Returns the problems found, empty when the store is consistent.
 */
export async function storeProblems(eventStore: EventStore): Promise<string[]> {
  let events: RecordedEvent[];
  try {
    events = await eventStore.readAll();
  } catch (err) {
    return [`reading every event failed: ${(err as Error).message}`];
  }
  const problems: string[] = [];
  const streams = new Map<string, RecordedEvent[]>();
  for (const e of events) {
    const list = streams.get(e.stream) ?? [];
    list.push(e);
    streams.set(e.stream, list);
  }
  for (const [stream, list] of streams) {
    list.forEach((e, i) => {
      if (e.revision !== BigInt(i)) problems.push(`${stream}: event ${i} (${e.type}) has revision ${e.revision}`);
    });
    if (stream.startsWith('conversation-')) problems.push(...conversationProblems(stream, list));
  }
  return problems;
}

function conversationProblems(stream: string, list: RecordedEvent[]): string[] {
  const problems: string[] = [];
  if (list[0]?.type !== 'ConversationStarted') problems.push(`${stream}: starts with ${list[0]?.type}, not ConversationStarted`);
  if (list.filter((e) => e.type === 'ConversationStarted').length !== 1) problems.push(`${stream}: ConversationStarted is not there exactly once`);
  const received = new Set<string>();
  const outbound = new Set<string>();
  for (const e of list) {
    const d = e.data as { messageId?: string; inReplyTo?: string[]; messageIds?: string[] };
    switch (e.type) {
      case 'MessageReceived':
      case 'OperatorMessageRecorded':
        if (received.has(d.messageId!)) problems.push(`${stream}: message ${d.messageId} stored twice`);
        received.add(d.messageId!);
        break;
      case 'AgentReplied':
        for (const id of d.inReplyTo ?? []) if (!received.has(id)) problems.push(`${stream}: reply ${d.messageId} answers unknown message ${id}`);
        outbound.add(d.messageId!);
        break;
      case 'OperatorMessageSent':
        outbound.add(d.messageId!);
        break;
      case 'MessageDelivered':
      case 'MessageDeliveryFailed':
        if (!outbound.has(d.messageId!)) problems.push(`${stream}: ${e.type} of unknown outbound message ${d.messageId}`);
        break;
      case 'MessagesUnanswered':
        for (const id of d.messageIds ?? []) if (!received.has(id)) problems.push(`${stream}: unanswered unknown message ${id}`);
        break;
    }
  }
  return problems;
}

/** The platform message ids of every stored customer message, with how often each is stored. */
export async function storedPlatformMessageIds(eventStore: EventStore): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const e of await eventStore.readAll({ filter: { eventTypes: ['MessageReceived'] } })) {
    const id = (e.data as { platform: { messageId?: string | number } }).platform.messageId;
    if (id !== undefined) counts.set(String(id), (counts.get(String(id)) ?? 0) + 1);
  }
  return counts;
}

/** One line in the test output saying what a fault test injected and what it checked. */
export function report(line: string): void {
  process.stdout.write(`[fault] ${line}\n`);
}
