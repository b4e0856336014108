import { randomUUID } from 'node:crypto';
import type { EventStore, NewEvent } from '../../src/ports/eventStore.js';

/**
 * Past conversations for replay tests, appended straight to the event store as the pipeline would have stored
 * them: customer turns (one or more messages), each answered by the AI, an operator, marked unanswered, or not
 * at all. No AI session is opened, so the live reply worker leaves them alone.
 */
export type SeedTurn = {
  customer: string[];
  answer?:
    | { agent: string; /** The agent that answered (none when absent). */ agentId?: string; provenance?: { sources: { documentId: string; title: string; chunkIndex: number; score: number }[]; latencyMs: number; costMicros: number; usageEstimated: boolean } }
    | { operator: string }
    | { unanswered: string };
};

export interface SeededConversation {
  conversationId: string;
  messageIds: string[][];
}

let clock = Date.parse('2026-03-01T09:00:00.000Z');
const at = () => new Date((clock += 1000)).toISOString();

/** `integrationId`: a real integration's, for what lists a conversation by its integration (a release check); else none's. */
export async function seedConversation(store: EventStore, companyId: string, turns: SeedTurn[], customerName = 'Ada', integrationId = 999_999): Promise<SeededConversation> {
  const conversationId = randomUUID();
  const events: NewEvent[] = [];
  const add = (type: string, data: unknown) => events.push({ id: randomUUID(), type, data, metadata: { companyId } });
  add('ConversationStarted', {
    conversationId,
    companyId,
    integrationId,
    connectorType: 'webchat',
    customer: { clientId: `visitor-${conversationId.slice(0, 8)}`, channelId: null, transport: 'webchat', name: customerName },
    stageId: null,
    at: at(),
  });
  const messageIds: string[][] = [];
  for (const turn of turns) {
    const ids = turn.customer.map((text) => {
      const messageId = randomUUID();
      add('MessageReceived', { messageId, dedupeKey: `msg:${messageId}`, dedupeUntil: null, text, platform: {}, at: at() });
      return messageId;
    });
    messageIds.push(ids);
    const a = turn.answer;
    if (!a) continue;
    if ('agent' in a) {
      add('AgentReplied', {
        messageId: randomUUID(),
        sessionId: randomUUID(),
        agentId: a.agentId ?? null,
        text: a.agent,
        inReplyTo: ids,
        model: 'gpt-4o-mini',
        inputTokens: 120,
        outputTokens: 30,
        handoff: false,
        ...(a.provenance ? { provenance: a.provenance } : {}),
        at: at(),
      });
    } else if ('operator' in a) {
      add('OperatorMessageSent', { messageId: randomUUID(), text: a.operator, by: 'user:op', at: at() });
    } else {
      add('MessagesUnanswered', { messageIds: ids, reason: a.unanswered, at: at() });
    }
  }
  await store.append(`conversation-${conversationId}`, events, 'no_stream');
  return { conversationId, messageIds };
}
