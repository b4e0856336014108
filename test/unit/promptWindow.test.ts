import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ConversationEvent } from '../../src/domain/conversations/events.js';
import { MemoryEventStore } from '../../src/infrastructure/memory/memoryEventStore.js';
import type { EventStore, ReadStreamOptions } from '../../src/ports/eventStore.js';
import { readRecentHistory } from '../../src/workers/answers/answerGeneration.js';
import type { AgentProfile } from '../../src/workers/replies/replyDecisions.js';
import { buildPrompt } from '../../src/workers/answers/answerGeneration.js';

/** The prompt a reply is generated from: the agent's instructions, the last 20 turns, then the unanswered messages. */
const agent: AgentProfile = {
  agentId: randomUUID(),
  companyId: randomUUID(),
  active: true,
  name: 'Ava',
  systemPrompt: 'You are Ava.',
  model: null,
  temperature: 0.3,
  useKnowledgeBase: false,
  handoffMessage: 'A human will answer.',
};
const at = '2026-01-01T00:00:00.000Z';

function customer(text: string, messageId = randomUUID()): ConversationEvent {
  return { type: 'MessageReceived', data: { messageId, dedupeKey: `msg:${messageId}`, dedupeUntil: null, text, platform: {}, at } };
}
function aiReply(text: string, inReplyTo: string): ConversationEvent {
  return {
    type: 'AgentReplied',
    data: { messageId: randomUUID(), sessionId: randomUUID(), agentId: null, text, inReplyTo: [inReplyTo], model: 'm', inputTokens: 1, outputTokens: 1, handoff: false, at },
  };
}
const idOf = (e: ConversationEvent) => (e.type === 'MessageReceived' ? e.data.messageId : '');

/** `count` alternating customer/assistant turns, numbered from 1 (oldest). */
function conversation(count: number): ConversationEvent[] {
  const events: ConversationEvent[] = [];
  let last = randomUUID();
  for (let i = 1; i <= count; i++) {
    if (i % 2 === 1) {
      last = randomUUID();
      events.push(customer(`turn ${i}`, last));
    } else events.push(aiReply(`turn ${i}`, last));
  }
  return events;
}

describe('buildPrompt', () => {
  it('keeps the 20 newest turns of 25, oldest first, between the system prompt and the unanswered message', () => {
    const pending = customer('where is my order?');
    const prompt = buildPrompt(agent, [...conversation(25), pending], [idOf(pending)]);
    expect(prompt[0]).toEqual({ role: 'system', content: 'You are Ava.' });
    expect(prompt.slice(1, -1).map((m) => m.content)).toEqual(Array.from({ length: 20 }, (_, i) => `turn ${i + 6}`));
    expect(prompt.slice(1, -1).map((m) => m.role)).toEqual(Array.from({ length: 20 }, (_, i) => ((i + 6) % 2 === 1 ? 'user' : 'assistant')));
    expect(prompt.at(-1)).toEqual({ role: 'user', content: 'where is my order?' });
  });

  it('sends every unanswered message once, as the last user turn, never also as history', () => {
    const first = customer('hello');
    const second = customer('anyone there?');
    const ids = [first, second].map(idOf);
    const prompt = buildPrompt(agent, [...conversation(4), first, second], ids);
    expect(prompt.map((m) => m.content)).toEqual(['You are Ava.', 'turn 1', 'turn 2', 'turn 3', 'turn 4', 'hello\nanyone there?']);
  });
});

/** A store that counts how many events each backward read handed out. */
function countingStore(inner: EventStore) {
  const reads: number[] = [];
  const store: EventStore = Object.assign(Object.create(inner) as EventStore, {
    async readStream(stream: string, options?: ReadStreamOptions) {
      const page = await inner.readStream(stream, options);
      reads.push(page.length);
      return page;
    },
  });
  return { store, reads };
}

async function storeConversation(events: ConversationEvent[]) {
  const memory = new MemoryEventStore();
  const stream = `conversation-${randomUUID()}`;
  for (let i = 0; i < events.length; i += 500) {
    await memory.append(stream, events.slice(i, i + 500).map((e) => ({ id: randomUUID(), type: e.type, data: e.data })), 'any');
  }
  return { memory, stream };
}

describe('readRecentHistory (the bounded backward read)', () => {
  it('reads one page from the end of a long conversation when the turns and the unanswered message are in it', async () => {
    const pending = customer('still there?');
    const { memory, stream } = await storeConversation([...conversation(3000), pending]);
    const { store, reads } = countingStore(memory);
    const history = await readRecentHistory(store, stream, { unanswered: [idOf(pending)], turns: 20 });
    expect(reads).toEqual([64]);
    expect(history).toHaveLength(64);
    expect(history.at(-1)).toMatchObject(pending);
    expect(history.at(-2)).toMatchObject({ data: { text: 'turn 3000' } });
    expect(history[0]).toMatchObject({ data: { text: 'turn 2938' } });
  });

  it('pages further back for an unanswered message older than the first page, and stops at 1024 events however long the stream', async () => {
    const old = customer('an old question');
    const { memory, stream } = await storeConversation([old, ...conversation(3000)]);
    const { store, reads } = countingStore(memory);
    const history = await readRecentHistory(store, stream, { unanswered: [idOf(old)], turns: 20 });
    expect(reads).toEqual(Array(16).fill(64));
    expect(history).toHaveLength(1024);
    expect(history.at(-1)).toMatchObject({ data: { text: 'turn 3000' } });
  });

  it('reads a short conversation whole, in order', async () => {
    const events = conversation(5);
    const { memory, stream } = await storeConversation(events);
    const history = await readRecentHistory(memory, stream, { unanswered: [], turns: 20 });
    expect(history.map(({ type, data }) => ({ type, data }))).toEqual(events);
  });
});
