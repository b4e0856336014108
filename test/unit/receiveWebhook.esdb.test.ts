import { describe, expect, it } from 'vitest';
import { receiveWebhook, type LiveIntegration } from '../../src/commands/platformWebhooks/receiveWebhook.js';
import { conversationStream } from '../../src/domain/conversations/decider.js';
import { classifyWebhookJson } from '../../src/domain/platformWebhooks/payload.js';
import { MemoryEventStore } from '../../src/infrastructure/memory/memoryEventStore.js';
import type { EventStore } from '../../src/ports/eventStore.js';
import { silentLogger } from '../../src/ports/logger.js';

/**
 * Webhook redelivery dedupe on an event store with EventStoreDB's guarantees only (a repeated event id is
 * recognised only when retried at the same expected revision), so a delivery stored twice fails here, not in
 * production.
 */
const companyId = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const integration = { status: 'active', integrationId: 7, companyId, connectorType: 'msgplatform' } as LiveIntegration;
const clock = { now: () => new Date('2026-11-22T10:00:00.000Z') };
const deps = (eventStore: EventStore) => ({ eventStore, clock, logger: silentLogger, findConversationByRef: async () => null });

/** One more instance of the service on the same store: its own command queues and caches, its appends held back so both decide first. */
function instanceOf(store: MemoryEventStore): EventStore {
  return {
    append: async (stream, events, expected) => {
      await new Promise((r) => setTimeout(r, 30));
      return store.append(stream, events, expected);
    },
    readStream: (stream, options) => store.readStream(stream, options),
    readAll: (options) => store.readAll(options),
    subscribe: (options, handler) => store.subscribe(options, handler),
    headPosition: () => store.headPosition(),
    close: async () => {},
  };
}

function delivery(messageId: string, text = 'Hi') {
  const raw = JSON.stringify({ hook_type: 'inbox', type: 'from_client', message_id: messageId, client_id: 'c-1', channel_id: 1, transport: 'telegram', text });
  const payload = classifyWebhookJson(raw);
  if (payload.kind === 'invalid') throw new Error('payload');
  return [payload, Buffer.from(raw)] as const;
}

describe('webhook redelivery on an event store with EventStoreDB semantics', () => {
  it('a first message delivered twice at once, to two instances, is stored once', async () => {
    const store = new MemoryEventStore({ semantics: 'eventstoredb' });
    const [payload, raw] = delivery('m-1');
    const [first, second] = await Promise.all([
      receiveWebhook(deps(instanceOf(store)), integration, payload, raw),
      receiveWebhook(deps(instanceOf(store)), integration, payload, raw),
    ]);
    expect([first.outcome, second.outcome].sort()).toEqual(['duplicate', 'processed']);
    const stored = await store.readStream(conversationStream(first.conversationId!));
    expect(stored.map((e) => e.type)).toEqual(['ConversationStarted', 'AiSessionOpened', 'MessageReceived']);
  });

  it('a message redelivered after 20 newer ones is a duplicate', async () => {
    const store = new MemoryEventStore({ semantics: 'eventstoredb' });
    const [payload, raw] = delivery('m-old');
    const first = await receiveWebhook(deps(store), integration, payload, raw);
    for (let i = 0; i < 20; i++) await receiveWebhook(deps(store), integration, ...delivery(`m-${i}`, `message ${i}`));
    expect((await receiveWebhook(deps(instanceOf(store)), integration, payload, raw)).outcome).toBe('duplicate');
    const received = (await store.readStream(conversationStream(first.conversationId!))).filter((e) => e.type === 'MessageReceived');
    expect(received).toHaveLength(21);
  });

  // Known gap, left open (issue 21): beyond the conversation's window of 200-225 dedupe keys only SQLite's unique
  // event ids refuse a redelivered message; EventStoreDB stores it again. Its reply is then charged once (the charge
  // guard) and not sent again (the send guard), but the message is stored twice and answered again. This test
  // documents it and fails (so turn it into a plain `it`) once deliveries get a guard of their own.
  it.fails('a message redelivered after 250 newer ones (beyond the conversation\u2019s dedupe window) is a duplicate', async () => {
    const store = new MemoryEventStore({ semantics: 'eventstoredb' });
    const [payload, raw] = delivery('m-old');
    const first = await receiveWebhook(deps(store), integration, payload, raw);
    for (let i = 0; i < 250; i++) await receiveWebhook(deps(store), integration, ...delivery(`m-${i}`, `message ${i}`));
    expect((await receiveWebhook(deps(store), integration, payload, raw)).outcome).toBe('duplicate');
    const received = (await store.readStream(conversationStream(first.conversationId!))).filter((e) => e.type === 'MessageReceived');
    expect(received).toHaveLength(251);
  });
});
