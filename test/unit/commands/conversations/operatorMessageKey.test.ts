import { describe, expect, it } from 'vitest';
import { handleCommand } from '../../../../src/commands/handleCommand.js';
import { idForKey } from '../../../../src/commands/idempotentStart.js';
import { sendOperatorMessage } from '../../../../src/commands/conversations/manageConversation.js';
import { receiveWebhook, type LiveIntegration } from '../../../../src/commands/platformWebhooks/receiveWebhook.js';
import { conversationDecider, conversationStream } from '../../../../src/domain/conversations/decider.js';
import { classifyWebhookJson } from '../../../../src/domain/platformWebhooks/payload.js';
import { MemoryEventStore } from '../../../../src/infrastructure/memory/memoryEventStore.js';
import { silentLogger } from '../../../../src/ports/logger.js';

const companyId = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const userId = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb';
const integration = { status: 'active', integrationId: 7, companyId, connectorType: 'msgplatform' } as LiveIntegration;
const clock = { now: () => new Date('2026-11-22T10:00:00.000Z') };

/**
 * An operator message sent under an Idempotency-Key is sent once, however many messages follow before the
 * client sends it again; on both kinds of event store (strict, and EventStoreDB's guarantees only).
 */
const stores = [
  ['strict (SQLite) semantics', () => new MemoryEventStore()],
  ['EventStoreDB semantics', () => new MemoryEventStore({ semantics: 'eventstoredb' })],
] as const;

describe.each(stores)('operator message Idempotency-Key (%s)', (_name, makeStore) => {
  it('given a message sent under a key and 60 sends after it, when it is sent again under the key, then nothing is sent twice', async () => {
    const eventStore = makeStore();
    const deps = { eventStore, clock, logger: silentLogger, findConversationByRef: async () => null };
    const raw = JSON.stringify({ hook_type: 'inbox', type: 'from_client', message_id: 'm-1', client_id: 'c-1', channel_id: 1, transport: 'telegram', text: 'Hi' });
    const payload = classifyWebhookJson(raw);
    if (payload.kind === 'invalid') throw new Error('payload');
    const { conversationId } = await receiveWebhook(deps, integration, payload, Buffer.from(raw));
    const actor = { companyId, userId };
    const keyed = idForKey(companyId, 'operator-message', 'key-1', conversationId!);

    // Each send delivered, as the send worker records it: the conversation then keeps only its recent sends.
    const send = async (text: string, messageId?: string) => {
      const result = await sendOperatorMessage(deps, actor, conversationId!, text, messageId);
      const delivered = { type: 'RecordDelivery' as const, messageId: result.messageId, platformMessageId: null, now: clock.now().toISOString() };
      await handleCommand(eventStore, conversationStream(conversationId!), conversationDecider, delivered);
      return result;
    };
    const first = await send('Hello from a human', keyed);
    expect(first.events.map((e) => e.type)).toContain('OperatorMessageSent');
    for (let i = 0; i < 60; i++) await send(`follow-up ${i}`);
    const again = await sendOperatorMessage(deps, actor, conversationId!, 'Hello from a human', keyed);

    expect(again.events).toEqual([]);
    expect(again.messageId).toBe(first.messageId);
    const sent = (await eventStore.readStream(conversationStream(conversationId!))).filter((e) => e.type === 'OperatorMessageSent' && (e.data as { messageId: string }).messageId === keyed);
    expect(sent).toHaveLength(1);
  });
});
