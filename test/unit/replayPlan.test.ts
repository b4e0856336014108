import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MAX_EVENTS_BACK, readReplayTurns } from '../../src/commands/replays/replayPlan.js';
import { MemoryEventStore } from '../../src/infrastructure/memory/memoryEventStore.js';
import type { EventStore, ReadStreamOptions } from '../../src/ports/eventStore.js';
import { seedConversation } from '../support/replayFixtures.js';

const COMPANY = randomUUID();

/** Counts the events each read returns: the plan's cost must not grow with the conversation. */
function counting(store: EventStore) {
  const stats = { events: 0 };
  const wrapped: EventStore = Object.create(store);
  wrapped.readStream = async (stream: string, options?: ReadStreamOptions) => {
    const page = await store.readStream(stream, options);
    stats.events += page.length;
    return page;
  };
  return { store: wrapped, stats };
}

describe('the turns a replay answers', () => {
  it('reads a bounded tail however long the conversation: its last 50 turns, in order, from at most 2,048 events', async () => {
    const store = new MemoryEventStore();
    const turns = Array.from({ length: 3000 }, (_, i) => ({ customer: [`q${i}`], answer: { agent: `a${i}` } }));
    const conv = await seedConversation(store, COMPANY, turns);
    const { store: reads, stats } = counting(store);
    const tail = await readReplayTurns(reads, conv.conversationId);
    expect(tail.turns.map((t) => t.customerText)).toEqual(Array.from({ length: 50 }, (_, i) => `q${2950 + i}`));
    expect(stats.events).toBeLessThanOrEqual(MAX_EVENTS_BACK);
    // Two pages of 128: enough for 50 turns and the first one's 20 turns of history.
    expect(stats.events).toBeLessThanOrEqual(256);
    expect(tail.revision).toBe(6000n);
  });

  it("each turn's history ends at its own last message: nothing after it", async () => {
    const store = new MemoryEventStore();
    const conv = await seedConversation(store, COMPANY, [
      { customer: ['one'], answer: { agent: 'first answer' } },
      { customer: ['two a', 'two b'], answer: { unanswered: 'no agent' } },
      { customer: ['three'] },
    ]);
    const { turns } = await readReplayTurns(store, conv.conversationId);
    expect(turns.map((t) => t.messageIds)).toEqual(conv.messageIds);
    const texts = (i: number) => turns[i]!.history.map((e) => ('text' in e.data ? e.data.text : e.type));
    expect(texts(0)).toEqual(['ConversationStarted', 'one']);
    expect(texts(1)).toEqual(['ConversationStarted', 'one', 'first answer', 'two a', 'two b']);
    expect(texts(2)).toEqual(['ConversationStarted', 'one', 'first answer', 'two a', 'two b', 'MessagesUnanswered', 'three']);
    expect(turns.map((t) => t.recorded.kind)).toEqual(['agent', 'unanswered', 'none']);
  });

  it('up to a revision: later events are not read', async () => {
    const store = new MemoryEventStore();
    const conv = await seedConversation(store, COMPANY, [{ customer: ['one'], answer: { agent: 'a' } }, { customer: ['two'], answer: { agent: 'b' } }]);
    const { turns } = await readReplayTurns(store, conv.conversationId, { upToRevision: 2n });
    expect(turns.map((t) => t.customerText)).toEqual(['one']);
    expect(turns[0]!.recorded).toMatchObject({ kind: 'agent', text: 'a' });
  });
});
