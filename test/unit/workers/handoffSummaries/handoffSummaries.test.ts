import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { conversationStream } from '../../../../src/domain/conversations/decider.js';
import { creditsStream } from '../../../../src/domain/credits/decider.js';
import { createInProcessBus } from '../../../../src/infrastructure/memory/inProcessBus.js';
import { MemoryEventStore } from '../../../../src/infrastructure/memory/memoryEventStore.js';
import { LlmError, type LlmProvider, type LlmRequest } from '../../../../src/ports/llm.js';
import { silentLogger } from '../../../../src/ports/logger.js';
import { handoffSummaryId, summarizeHandoff, type HandoffSummaryDeps } from '../../../../src/workers/handoffSummaries/handoffSummaries.js';
import type { CompanyLlm } from '../../../../src/workers/replies/replyDecisions.js';
import { redactionStream } from '../../../../src/domain/company/redaction/decider.js';

/** The handoff summary worker: the builtin provider's extracted note; the company's model's note, charged once. */

const T = '2026-01-01T00:00:00.000Z';
const pricing = { table: { 'gpt-4o-mini': { inputMicrosPer1K: 150, outputMicrosPer1K: 600 } }, defaultPrice: { inputMicrosPer1K: 150, outputMicrosPer1K: 600 } };
const stores = [
  ['strict (SQLite) semantics', () => new MemoryEventStore()],
  ['EventStoreDB semantics', () => new MemoryEventStore({ semantics: 'eventstoredb' })],
] as const;

async function givenAHandoff(store: MemoryEventStore, companyId: string, text = 'My parcel is late, I want a refund') {
  const conversationId = randomUUID();
  const sessionId = randomUUID();
  const messageId = randomUUID();
  const e = (type: string, data: Record<string, unknown>) => ({ id: randomUUID(), type, data });
  await store.append(conversationStream(conversationId), [
    e('ConversationStarted', { conversationId, companyId, integrationId: 1, connectorType: 'msgplatform', customer: { clientId: 'c', channelId: 1, transport: 'telegram' }, stageId: null, at: T }),
    e('AiSessionOpened', { sessionId, at: T }),
    e('MessageReceived', { messageId, dedupeKey: 'k1', dedupeUntil: null, text, platform: {}, at: T }),
    e('AgentReplied', { messageId: randomUUID(), sessionId, agentId: null, text: 'A colleague will reply soon.', inReplyTo: [messageId], model: 'gpt-4o-mini', inputTokens: 10, outputTokens: 5, handoff: true, handoffReason: 'Refunds need a person', at: T }),
    e('AiSessionPaused', { sessionId, reason: 'handoff', by: null, at: T }),
  ], 'no_stream');
  await store.append(creditsStream(companyId), [e('CreditsGranted', { amountMicros: 1_000_000, reason: 'trial', grantedBy: null, at: T })], 'any');
  return conversationId;
}

function deps(store: MemoryEventStore, llm: CompanyLlm): HandoffSummaryDeps {
  return { eventStore: store, clock: { now: () => new Date(T) }, logger: silentLogger, bus: createInProcessBus(), loadLlm: async () => llm, pricing, concurrency: 2, perCompanyConcurrency: 1 };
}

const provider = (complete: (r: LlmRequest) => Promise<Awaited<ReturnType<LlmProvider['complete']>>>): LlmProvider => ({ complete, testConnection: async () => ({ ok: true, latencyMs: 1 }) });
const summariesOf = async (store: MemoryEventStore, conversationId: string) => (await store.readStream(conversationStream(conversationId))).filter((e) => e.type === 'HandoffSummarized').map((e) => e.data as Record<string, unknown>);
const chargesOf = async (store: MemoryEventStore, companyId: string) => (await store.readStream(creditsStream(companyId))).filter((e) => e.type === 'CreditsConsumed').map((e) => e.data as Record<string, unknown>);

describe.each(stores)('handoff summaries on an event store with %s', (_name, makeStore) => {
  it('given the builtin provider, when a handoff is summarised, then the note is extracted from the messages and costs nothing', async () => {
    const store = makeStore();
    const companyId = randomUUID();
    const conversationId = await givenAHandoff(store, companyId);
    const builtin = provider(async () => {
      throw new Error('the builtin provider is never asked for a summary');
    });
    expect(await summarizeHandoff(deps(store, { kind: 'builtin', provider: builtin, model: null }), { conversationId, companyId })).toBe('summarized');
    expect(await summariesOf(store, conversationId)).toEqual([
      expect.objectContaining({
        wants: '“My parcel is late, I want a refund”',
        tried: 'The AI did not answer; the customer got the handoff message',
        sources: [],
        why: 'The AI handed off: Refunds need a person',
        writtenBy: 'extractive',
        inputTokens: 0,
        outputTokens: 0,
      }),
    ]);
    expect(await chargesOf(store, companyId)).toEqual([]);
  });

  it('given messages handed to people for the AI backlog (an overload), when the job runs, then no summary is written: the reason says it all, and an overload must not make more work', async () => {
    const store = makeStore();
    const companyId = randomUUID();
    const conversationId = randomUUID();
    const sessionId = randomUUID();
    const messageId = randomUUID();
    const e = (type: string, data: Record<string, unknown>) => ({ id: randomUUID(), type, data });
    await store.append(conversationStream(conversationId), [
      e('ConversationStarted', { conversationId, companyId, integrationId: 1, connectorType: 'msgplatform', customer: { clientId: 'c', channelId: 1, transport: 'telegram' }, stageId: null, at: T }),
      e('AiSessionOpened', { sessionId, at: T }),
      e('MessageReceived', { messageId, dedupeKey: 'k1', dedupeUntil: null, text: 'Where is my parcel?', platform: {}, at: T }),
      e('MessagesUnanswered', { messageIds: [messageId], reason: 'AI backlog: 10000 conversations were already waiting for an answer', at: T }),
      e('AiSessionPaused', { sessionId, reason: 'handoff', by: null, at: T }),
    ], 'no_stream');
    const builtin = provider(async () => {
      throw new Error('never asked');
    });
    expect(await summarizeHandoff(deps(store, { kind: 'builtin', provider: builtin, model: null }), { conversationId, companyId })).toBe('skipped');
    expect(await summariesOf(store, conversationId)).toEqual([]);
  });

  it("given the company's model, when two deliveries of the job run at once, then one summary is recorded and the model's call is charged once", async () => {
    const store = makeStore();
    const companyId = randomUUID();
    const conversationId = await givenAHandoff(store, companyId);
    let calls = 0;
    const model = provider(async (request) => {
      calls++;
      expect(request.messages[1]!.content).toContain('Customer: My parcel is late, I want a refund');
      return { text: 'WANTS: A refund for a late parcel.\nTRIED: Told them a colleague would reply.', usage: { inputTokens: 1000, outputTokens: 1000 }, model: 'gpt-4o-mini' };
    });
    const d = deps(store, { kind: 'openai', provider: model, model: 'gpt-4o-mini' });
    await Promise.all([summarizeHandoff(d, { conversationId, companyId }), summarizeHandoff(d, { conversationId, companyId })]);
    await summarizeHandoff(d, { conversationId, companyId });
    const summaries = await summariesOf(store, conversationId);
    expect(summaries).toEqual([expect.objectContaining({ wants: 'A refund for a late parcel.', tried: 'Told them a colleague would reply.', writtenBy: 'llm', model: 'gpt-4o-mini' })]);
    const summaryId = summaries[0]!.summaryId;
    expect(await chargesOf(store, companyId)).toEqual([expect.objectContaining({ replyId: summaryId, amountMicros: 750 })]);
    expect(calls).toBeGreaterThanOrEqual(1);
    expect(summaryId).toBe(handoffSummaryId(conversationId, T));
  });

  it('given a model that fails, then the extracted note is recorded and nothing is charged', async () => {
    const store = makeStore();
    const companyId = randomUUID();
    const conversationId = await givenAHandoff(store, companyId);
    const failing = provider(async () => {
      throw new LlmError('unreachable', 'could not reach the LLM API at http://127.0.0.1:1 (connect ECONNREFUSED)', true);
    });
    await summarizeHandoff(deps(store, { kind: 'openai', provider: failing, model: 'gpt-4o-mini' }), { conversationId, companyId });
    expect(await summariesOf(store, conversationId)).toEqual([expect.objectContaining({ writtenBy: 'extractive' })]);
    expect(await chargesOf(store, companyId)).toEqual([]);
  });
});

describe('handoff summaries with redaction before the model', () => {
  it("given the company's redaction on, when the model summarises, then it is sent placeholders and the note has the customer's address back", async () => {
    const store = new MemoryEventStore();
    const companyId = randomUUID();
    const conversationId = await givenAHandoff(store, companyId, 'Refund me, write to jane.doe@example.org or call +44 20 7946 0958');
    await store.append(redactionStream(companyId), [{ id: randomUUID(), type: 'RedactionConfigured', data: { enabled: true, agents: {}, by: 'user:1', at: T } }], 'no_stream');
    const sent: LlmRequest[] = [];
    const model = provider(async (request) => {
      sent.push(request);
      return { text: 'WANTS: a refund, answered at [EMAIL_1]\nTRIED: nothing', model: 'gpt-4o-mini', usage: { inputTokens: 50, outputTokens: 10 } };
    });
    expect(await summarizeHandoff(deps(store, { kind: 'openai', provider: model, model: 'gpt-4o-mini' }), { conversationId, companyId })).toBe('summarized');
    const prompt = JSON.stringify(sent[0]!.messages);
    expect(prompt).toContain('write to [EMAIL_1] or call [PHONE_1]');
    expect(prompt).not.toContain('jane.doe');
    expect(prompt).not.toContain('7946');
    expect(await summariesOf(store, conversationId)).toEqual([expect.objectContaining({ wants: 'a refund, answered at jane.doe@example.org', writtenBy: 'llm' })]);
  });
});
