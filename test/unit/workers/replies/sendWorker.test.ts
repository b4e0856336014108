import { randomUUID } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { conversationStream } from '../../../../src/domain/conversations/decider.js';
import { integrationStream } from '../../../../src/domain/integrations/decider.js';
import { createInProcessBus } from '../../../../src/infrastructure/memory/inProcessBus.js';
import { MemoryEventStore } from '../../../../src/infrastructure/memory/memoryEventStore.js';
import { silentLogger } from '../../../../src/ports/logger.js';
import { PlatformError, type PlatformClient, type SendMessageInput } from '../../../../src/ports/platform.js';
import { sendMessage } from '../../../../src/workers/replies/sendWorker.js';
import { webchatSubject } from '../../../../src/workers/replies/replyJobs.js';
import { sendStream } from '../../../../src/domain/conversations/send/decider.js';

const T = '2026-11-22T10:00:00.000Z';
const companyId = randomUUID();
const conversationId = randomUUID();
const replyId = randomUUID();
const messageId = randomUUID();
const sessionId = randomUUID();

/** A conversation with one agent reply pending delivery, on a msgplatform integration. */
const PLATFORM = { apiUrl: 'https://platform.example', apiToken: 'v1:token' };

/**
 * Every send test runs on both kinds of event store: the strict one (SQLite's guarantees) and one with EventStoreDB's
 * weaker ones (a repeated event id recognised only at the same expected revision), so a send that relies on the
 * stronger guarantee fails here, not in production.
 */
const stores = [
  ['strict (SQLite) semantics', () => new MemoryEventStore()],
  ['EventStoreDB semantics', () => new MemoryEventStore({ semantics: 'eventstoredb' })],
] as const;

async function givenAPendingReply(platformSettings: { apiUrl: string | null; apiToken: string | null }, makeStore: () => MemoryEventStore, connectorType: 'msgplatform' | 'webchat' = 'msgplatform') {
  const store = makeStore();
  await store.append(integrationStream(3), [
    {
      id: randomUUID(),
      type: 'IntegrationCreated',
      data: { integrationId: 3, companyId, connectorType, name: 'P', ...platformSettings, webhookSecret: null, active: true, agentId: null, allowedOrigins: [], at: T },
    },
  ], 'no_stream');
  const customer = { clientId: 77, channelId: 5, transport: 'telegram' };
  await store.append(conversationStream(conversationId), [
    { id: randomUUID(), type: 'ConversationStarted', data: { conversationId, companyId, integrationId: 3, connectorType, customer, stageId: null, at: T } },
    { id: randomUUID(), type: 'AiSessionOpened', data: { sessionId, at: T } },
    { id: randomUUID(), type: 'MessageReceived', data: { messageId, dedupeKey: 'msg:1', dedupeUntil: null, text: 'Hi', platform: {}, at: T } },
    {
      id: randomUUID(),
      type: 'AgentReplied',
      data: { messageId: replyId, sessionId, agentId: null, text: 'Hello!', inReplyTo: [messageId], model: 'm', inputTokens: 1, outputTokens: 1, handoff: false, at: T },
    },
  ], 'no_stream');
  return store;
}

function platformThat(answers: Array<'ok' | 'fail'>) {
  const calls: SendMessageInput[] = [];
  const platform: PlatformClient = {
    registerWebhook: async () => ({ webhookId: 1, created: true }),
    async sendMessage(input) {
      calls.push(input);
      if ((answers[calls.length - 1] ?? 'ok') === 'fail') throw new PlatformError('refused', 'platform answered 503 to POST /v1/messages', 503);
      return { messageId: 9000 + calls.length };
    },
  };
  return { platform, calls };
}

const deps = (store: MemoryEventStore, platform: PlatformClient) => ({
  eventStore: store,
  clock: { now: () => new Date(T) },
  logger: silentLogger,
  bus: createInProcessBus(),
  platform,
  secretBox: { seal: (s: string) => s, open: (s: string) => s.replace(/^v1:/, '') },
});
const job = { conversationId, messageId: replyId, revision: '3' };
const typesIn = async (store: MemoryEventStore) => (await store.readStream(conversationStream(conversationId))).map((e) => e.type);

describe.each(stores)('send worker on an event store with %s', (_name, makeStore) => {
  it('given the platform accepted but recording the delivery failed (full disk), when the job is redelivered, then it records the delivery and never sends again', async () => {
    const store = await givenAPendingReply(PLATFORM, makeStore);
    const { platform, calls } = platformThat(['ok']);
    const append = store.append.bind(store);
    let refuseDelivered = true;
    store.append = async (stream, events, expected) => {
      if (refuseDelivered && events.some((e) => e.type === 'MessageDelivered')) {
        refuseDelivered = false;
        throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
      }
      return append(stream, events, expected);
    };
    const unrecorded = new Map();
    await expect(sendMessage(deps(store, platform), job, { attempt: 1, lastAttempt: false }, unrecorded)).rejects.toThrow(/disk is full/);
    await sendMessage(deps(store, platform), job, { attempt: 2, lastAttempt: false }, unrecorded);
    await sendMessage(deps(store, platform), job, { attempt: 3, lastAttempt: false }, unrecorded);
    expect(calls).toHaveLength(1);
    expect(await typesIn(store)).toEqual(['ConversationStarted', 'AiSessionOpened', 'MessageReceived', 'AgentReplied', 'MessageSendAttempted', 'MessageDelivered']);
  });

  it('given a store that cannot write, when the job runs, then nothing is sent (the attempt is recorded before the call)', async () => {
    const store = await givenAPendingReply(PLATFORM, makeStore);
    const { platform, calls } = platformThat(['ok']);
    store.append = async () => {
      throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
    };
    await expect(sendMessage(deps(store, platform), job, { attempt: 1, lastAttempt: false })).rejects.toThrow(/disk is full/);
    expect(calls).toHaveLength(0);
  });

  it('every attempt of one reply carries the same idempotency key, and each attempt is recorded', async () => {
    const store = await givenAPendingReply(PLATFORM, makeStore);
    const { platform, calls } = platformThat(['fail', 'ok']);
    await expect(sendMessage(deps(store, platform), job, { attempt: 1, lastAttempt: false })).rejects.toBeInstanceOf(PlatformError);
    await sendMessage(deps(store, platform), job, { attempt: 2, lastAttempt: false });
    expect(calls.map((c) => c.idempotencyKey)).toEqual([replyId, replyId]);
    const events = await store.readStream(conversationStream(conversationId));
    expect(events.filter((e) => e.type === 'MessageSendAttempted').map((e) => (e.data as { attempt: number }).attempt)).toEqual([1, 2]);
    expect(events.at(-1)!.type).toBe('MessageDelivered');
    // Settled: a late redelivery sends nothing.
    await sendMessage(deps(store, platform), job, { attempt: 3, lastAttempt: false });
    expect(calls).toHaveLength(2);
  });

  it('finds the message without the revision in the job (jobs republished after a restart) by a bounded backward read', async () => {
    const store = await givenAPendingReply(PLATFORM, makeStore);
    const { platform, calls } = platformThat(['ok']);
    await sendMessage(deps(store, platform), { conversationId, messageId: replyId }, { attempt: 1, lastAttempt: false });
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ clientId: 77, channelId: 5, transport: 'telegram', text: 'Hello!', apiToken: 'token' });
  });

  it('given an msgplatform integration without an apiUrl (the sandbox), when the job runs, then the reply is recorded as delivered to the sandbox and nothing is sent', async () => {
    const store = await givenAPendingReply({ apiUrl: null, apiToken: null }, makeStore);
    const { platform, calls } = platformThat(['ok']);
    await sendMessage(deps(store, platform), job, { attempt: 1, lastAttempt: false });
    expect(calls).toHaveLength(0);
    const events = await store.readStream(conversationStream(conversationId));
    expect(events.map((e) => e.type)).not.toContain('MessageDeliveryFailed');
    expect(events.at(-1)).toMatchObject({ type: 'MessageDelivered', data: { messageId: replyId, platformMessageId: null, deliveredTo: 'sandbox' } });
  });

  it('given a web chat reply, when the job runs, then it is pushed and the delivery is the one write (a push is safe to repeat: no attempt, no send guard)', async () => {
    const store = await givenAPendingReply({ apiUrl: null, apiToken: null }, makeStore, 'webchat');
    const { platform, calls } = platformThat(['ok']);
    const d = deps(store, platform);
    const pushed: unknown[] = [];
    await d.bus.listen(webchatSubject(conversationId), (m: unknown) => void pushed.push(m));
    await sendMessage(d, job, { attempt: 1, lastAttempt: false });
    expect(calls).toHaveLength(0);
    await vi.waitFor(() => expect(pushed).toMatchObject([{ type: 'message', id: replyId, author: 'agent', text: 'Hello!' }]));
    expect((await typesIn(store)).slice(4)).toEqual(['MessageDelivered']);
    expect(await store.readStream(sendStream(replyId))).toEqual([]);
  });

  it('given an apiUrl but no API token, when the job runs, then the failure says which setting is missing', async () => {
    const store = await givenAPendingReply({ apiUrl: 'https://platform.example', apiToken: null }, makeStore);
    const { platform, calls } = platformThat(['ok']);
    await sendMessage(deps(store, platform), job, { attempt: 1, lastAttempt: false });
    expect(calls).toHaveLength(0);
    const events = await store.readStream(conversationStream(conversationId));
    expect(events.at(-1)).toMatchObject({ type: 'MessageDeliveryFailed', data: { reason: expect.stringMatching(/no platform API token/) } });
  });

  it('given a delivered reply and 300 later events in the conversation, when its job is redelivered, then nothing is sent again', async () => {
    const store = await givenAPendingReply(PLATFORM, makeStore);
    const { platform, calls } = platformThat(['ok']);
    await sendMessage(deps(store, platform), job, { attempt: 1, lastAttempt: false });
    for (let i = 0; i < 300; i++) {
      await store.append(conversationStream(conversationId), [{ id: randomUUID(), type: 'MessageReceived', data: { messageId: randomUUID(), dedupeKey: `msg:later-${i}`, dedupeUntil: null, text: 'and?', platform: {}, at: T } }], 'any');
    }
    await sendMessage(deps(store, platform), job, { attempt: 1, lastAttempt: false });
    expect(calls).toHaveLength(1);
  });

  it('given a delivered reply stored again (EventStoreDB keeps a late duplicate of an event), when its job runs, then it is not sent again', async () => {
    const store = await givenAPendingReply(PLATFORM, makeStore);
    const { platform, calls } = platformThat(['ok']);
    await sendMessage(deps(store, platform), job, { attempt: 1, lastAttempt: false });
    const [reply] = (await store.readStream(conversationStream(conversationId))).filter((e) => e.type === 'AgentReplied');
    await store.append(conversationStream(conversationId), [{ id: randomUUID(), type: reply!.type, data: reply!.data }], 'any');
    await sendMessage(deps(store, platform), { conversationId, messageId: replyId }, { attempt: 1, lastAttempt: false });
    expect(calls).toHaveLength(1);
  });

  it('a platform delivery records where it went', async () => {
    const store = await givenAPendingReply(PLATFORM, makeStore);
    const { platform } = platformThat(['ok']);
    await sendMessage(deps(store, platform), job, { attempt: 1, lastAttempt: false });
    const events = await store.readStream(conversationStream(conversationId));
    expect(events.at(-1)).toMatchObject({ type: 'MessageDelivered', data: { platformMessageId: 9001, deliveredTo: 'platform' } });
  });
});
