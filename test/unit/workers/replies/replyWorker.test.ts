import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { conversationStream } from '../../../../src/domain/conversations/decider.js';
import { integrationStream } from '../../../../src/domain/integrations/decider.js';
import { createInProcessBus } from '../../../../src/infrastructure/memory/inProcessBus.js';
import { MemoryEventStore } from '../../../../src/infrastructure/memory/memoryEventStore.js';
import { silentLogger } from '../../../../src/ports/logger.js';
import type { LlmProvider } from '../../../../src/ports/llm.js';
import { createFairSlots } from '../../../../src/shared/fairness/fairSlots.js';
import { GENERATE_REPLY } from '../../../../src/workers/replies/replyJobs.js';
import type { ReplyWorkerDeps } from '../../../../src/workers/replies/replyDecisions.js';
import { startReplyWorker } from '../../../../src/workers/replies/replyWorker.js';

const T = new Date().toISOString();
const companyId = randomUUID();
const agentId = randomUUID();

async function givenAnUnansweredMessage(store: MemoryEventStore, text: string, at = T) {
  const conversationId = randomUUID();
  const messageId = randomUUID();
  const customer = { clientId: 'c', channelId: 1, transport: 'telegram' };
  await store.append(conversationStream(conversationId), [
    { id: randomUUID(), type: 'ConversationStarted', data: { conversationId, companyId, integrationId: 1, connectorType: 'msgplatform', customer, stageId: null, at: T } },
    { id: randomUUID(), type: 'AiSessionOpened', data: { sessionId: randomUUID(), at: T } },
    { id: randomUUID(), type: 'MessageReceived', data: { messageId, dedupeKey: `msg:${messageId}`, dedupeUntil: null, text, platform: {}, at } },
  ], 'no_stream');
  return { conversationId, messageId };
}

function worker(store: MemoryEventStore, overrides: Partial<ReplyWorkerDeps>): ReplyWorkerDeps {
  const llm: LlmProvider = { complete: async () => ({ text: 'ok', model: 'm', usage: { inputTokens: 1, outputTokens: 1 } }), test: async () => ({ ok: true }) } as unknown as LlmProvider;
  return {
    eventStore: store,
    clock: { now: () => new Date() },
    logger: silentLogger,
    bus: createInProcessBus(),
    loadAgent: async () => ({ agentId, companyId, active: true, name: 'A', systemPrompt: 'Be brief.', model: null, temperature: 0, useKnowledgeBase: true, handoffMessage: 'A human will answer.' }),
    loadLlm: async () => ({ kind: 'builtin', provider: llm, model: null }),
    searchKnowledge: async () => [],
    pricing: { table: {}, defaultPrice: { inputMicrosPer1K: 0, outputMicrosPer1K: 0 } } as never,
    burstWindowMs: 0,
    llmRetryDelaysMs: [],
    maxDeliver: 3,
    backoffMs: [10],
    ...overrides,
  };
}

describe('reply worker', () => {
  it('given a job that fails on every delivery, then its messages are marked unanswered in plain words, the customer gets the handoff message, and the session is handed to a human', async () => {
    const store = new MemoryEventStore();
    await store.append(integrationStream(1), [
      {
        id: randomUUID(),
        type: 'IntegrationCreated',
        data: { integrationId: 1, companyId, connectorType: 'msgplatform', name: 'P', apiUrl: null, apiToken: null, webhookSecret: null, active: true, agentId, allowedOrigins: [], at: T },
      },
    ], 'no_stream');
    const { conversationId, messageId } = await givenAnUnansweredMessage(store, 'x'.repeat(65_536));
    let attempts = 0;
    const deps = worker(store, {
      searchKnowledge: async () => {
        attempts++;
        throw new RangeError('Invalid typed array length: 4294967295');
      },
    });
    const subscription = await startReplyWorker(deps);
    await deps.bus.publish(GENERATE_REPLY, { conversationId, messageId, companyId }, { dedupeId: messageId });
    await expect.poll(async () => (await store.readStream(conversationStream(conversationId))).map((e) => e.type), { timeout: 5000 }).toContain('MessagesUnanswered');
    const events = await store.readStream(conversationStream(conversationId));
    const unanswered = events.find((e) => e.type === 'MessagesUnanswered')!.data as { messageIds: string[]; reason: string };
    expect(unanswered.messageIds).toEqual([messageId]);
    // The error's own text (here a typed-array length; elsewhere a path or an address) stays in the log.
    expect(unanswered.reason).toBe('The AI could not answer because of an error in the service (see its log)');
    expect(events.find((e) => e.type === 'AgentReplied')?.data).toMatchObject({ text: 'A human will answer.', inReplyTo: [messageId], handoff: true, aiFailed: true });
    expect(events.at(-1)).toMatchObject({ type: 'AiSessionPaused', data: { reason: 'handoff' } });
    expect(attempts).toBe(3);
    await subscription.stop();
    await deps.bus.close();
  });
});

describe('AI backlog', () => {
  const integrationCreated = (active: boolean) => ({
    id: randomUUID(),
    type: 'IntegrationCreated',
    data: { integrationId: 1, companyId, connectorType: 'msgplatform', name: 'P', apiUrl: null, apiToken: null, webhookSecret: null, active, agentId, allowedOrigins: [], at: T },
  });

  it('given a message unanswered for longer than the maximum delay, when its job comes, then it goes to people as "AI backlog" and the model is not called', async () => {
    const store = new MemoryEventStore();
    await store.append(integrationStream(1), [integrationCreated(true)], 'no_stream');
    const receivedAt = new Date(Date.now() - 10_000).toISOString();
    const { conversationId, messageId } = await givenAnUnansweredMessage(store, 'where is my order?', receivedAt);
    let calls = 0;
    const deps = worker(store, { maxDelayMs: 5_000, searchKnowledge: async () => (calls++, []) });
    const subscription = await startReplyWorker(deps);
    await deps.bus.publish(GENERATE_REPLY, { conversationId, messageId, companyId, receivedAt }, { dedupeId: messageId });
    await expect.poll(async () => (await store.readStream(conversationStream(conversationId))).map((e) => e.type), { timeout: 5000 }).toContain('AiSessionPaused');
    const events = await store.readStream(conversationStream(conversationId));
    const unanswered = events.find((e) => e.type === 'MessagesUnanswered')!.data as { messageIds: string[]; reason: string };
    expect(unanswered).toMatchObject({ messageIds: [messageId], reason: 'AI backlog: no answer within 5 s' });
    expect(events.at(-1)).toMatchObject({ type: 'AiSessionPaused', data: { reason: 'handoff' } });
    expect(events.some((e) => e.type === 'AgentReplied')).toBe(false);
    expect(calls).toBe(0);
    await subscription.stop();
    await deps.bus.close();
  });

  it('given the same late message on a switched-off integration, then nothing is recorded (the AI would not have answered it either)', async () => {
    const store = new MemoryEventStore();
    await store.append(integrationStream(1), [integrationCreated(false)], 'no_stream');
    const receivedAt = new Date(Date.now() - 10_000).toISOString();
    const { conversationId, messageId } = await givenAnUnansweredMessage(store, 'where is my order?', receivedAt);
    const deps = worker(store, { maxDelayMs: 5_000 });
    const done = new Promise<void>((resolve) => {
      const info = deps.logger.info.bind(deps.logger);
      deps.logger = { ...deps.logger, info: (obj: unknown, msg?: string) => (msg === 'reply job done' ? resolve() : info(obj as never, msg as never)) } as typeof deps.logger;
    });
    const subscription = await startReplyWorker(deps);
    await deps.bus.publish(GENERATE_REPLY, { conversationId, messageId, companyId, receivedAt }, { dedupeId: messageId });
    await done;
    expect((await store.readStream(conversationStream(conversationId))).map((e) => e.type)).toEqual(['ConversationStarted', 'AiSessionOpened', 'MessageReceived']);
    await subscription.stop();
    await deps.bus.close();
  });
});

describe('fair worker slots', () => {
  it("one company holds at most its share; another company's job runs at once; an over-share job steps aside after its wait", async () => {
    const slots = createFairSlots({ total: 4, perCompany: 2 });
    const a1 = await slots.acquire('A', 10);
    const a2 = await slots.acquire('A', 10);
    expect(a1 && a2).toBeTruthy();
    const started = Date.now();
    expect(await slots.acquire('A', 50)).toBeNull();
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    const b1 = await slots.acquire('B', 0);
    expect(b1).toBeTruthy();
    expect(slots.running()).toEqual({ total: 3, byCompany: { A: 2, B: 1 } });
    // A waiting job of A gets the slot A frees, in arrival order.
    const waiting = slots.acquire('A', 1000);
    a1!();
    expect(await waiting).toBeTruthy();
    expect(slots.running()).toEqual({ total: 3, byCompany: { A: 2, B: 1 } });
  });
});
