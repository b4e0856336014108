import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { conversationStream } from '../../src/domain/conversations/decider.js';
import { integrationStream } from '../../src/domain/integrations/decider.js';
import { chunkTexts } from '../../src/domain/knowledge/chunking.js';
import { createBuiltinLlm } from '../../src/infrastructure/llm/builtinLlm.js';
import { createInProcessBus } from '../../src/infrastructure/memory/inProcessBus.js';
import { MemoryEventStore } from '../../src/infrastructure/memory/memoryEventStore.js';
import { createKnowledgeIndex, type KnowledgeSearchResult } from '../../src/infrastructure/search/knowledgeIndex.js';
import { silentLogger } from '../../src/ports/logger.js';
import { GENERATE_REPLY } from '../../src/workers/replies/replyJobs.js';
import { startReplyWorker } from '../../src/workers/replies/replyWorker.js';

/**
 * Retrieval quality of the builtin retriever on a labelled shop knowledge base (test/fixtures/retrieval/shop.json):
 * recall@3 = the share of questions whose expected passage is among the first three results. The questions are
 * how customers write: paraphrases ("return rules" → Returns), other word forms, typos, lower case, no "?".
 */
interface Fixture {
  documents: { title: string; content: string }[];
  questions: { q: string; title: string; section?: string }[];
}
const fixture = JSON.parse(readFileSync(new URL('../fixtures/retrieval/shop.json', import.meta.url), 'utf8')) as Fixture;
const COMPANY = 'shop';
const K = 3;

function buildIndex() {
  const index = createKnowledgeIndex();
  fixture.documents.forEach((d, i) => index.addDocument(COMPANY, { id: `doc-${i}`, title: d.title, chunks: chunkTexts(d) }));
  return index;
}

/** The expected passage: the document with that title, and the chunk under `section` when one is named. */
const isExpected = (hit: Pick<KnowledgeSearchResult, 'title' | 'text'>, expected: Fixture['questions'][number]) =>
  hit.title === expected.title && (expected.section === undefined || hit.text.startsWith(`## ${expected.section}`));

describe('retrieval quality (labelled shop knowledge base)', () => {
  it('has a realistic fixture: at least 10 documents and 20 labelled questions, each label pointing at a real passage', () => {
    expect(fixture.documents.length).toBeGreaterThanOrEqual(10);
    expect(fixture.questions.length).toBeGreaterThanOrEqual(20);
    for (const q of fixture.questions) {
      const doc = fixture.documents.find((d) => d.title === q.title);
      expect(doc, q.q).toBeDefined();
      if (q.section) expect(chunkTexts(doc!).some((c) => c.startsWith(`## ${q.section}`)), `${q.q} → ${q.section}`).toBe(true);
    }
  });

  it(`finds the expected passage among the first ${K} results for at least 90 % of the questions (recall@${K})`, () => {
    const index = buildIndex();
    const misses: string[] = [];
    for (const question of fixture.questions) {
      const top = index.search(COMPANY, question.q, { limit: K });
      if (!top.some((hit) => isExpected(hit, question))) {
        misses.push(`  "${question.q}" → expected ${question.title}${question.section ? ` › ${question.section}` : ''}, got ${top.map((h) => h.title).join(' | ') || 'nothing'}`);
      }
    }
    const recall = (fixture.questions.length - misses.length) / fixture.questions.length;
    console.log(`[retrieval] recall@${K} = ${recall.toFixed(3)} (${fixture.questions.length - misses.length}/${fixture.questions.length})${misses.length ? `; misses:\n${misses.join('\n')}` : ''}`);
    expect(recall).toBeGreaterThanOrEqual(0.9);
  });

  // Since issue 26 the builtin agent answers only on strong evidence: a paraphrase whose key word the knowledge base
  // lacks ("sweater", "reset") is handed off rather than risked; bench:answers measures both sides of that trade.
  it('the builtin agent answers the questions from the expected passage rather than handing off (printed; at least 75 %)', async () => {
    const index = buildIndex();
    const llm = createBuiltinLlm();
    const wrong: string[] = [];
    for (const question of fixture.questions) {
      const passages = index.search(COMPANY, question.q, { limit: 5 });
      const reply = await llm.complete({ model: 'builtin', messages: [{ role: 'user', content: question.q }], passages, handoffMessage: 'HANDOFF' });
      // The passage it says it answered from (its answer is that passage's answering sentences, not the passage).
      const answeredFrom = passages[reply.usedPassages?.[0] ?? -1];
      if (reply.handoff || !answeredFrom || !isExpected(answeredFrom, question)) {
        wrong.push(`  "${question.q}" → ${reply.handoff ? 'handoff' : `answered from ${answeredFrom?.title ?? '?'}`}`);
      }
    }
    const rate = (fixture.questions.length - wrong.length) / fixture.questions.length;
    console.log(`[retrieval] builtin agent answered from the expected passage: ${rate.toFixed(3)}${wrong.length ? `; not:\n${wrong.join('\n')}` : ''}`);
    expect(rate).toBeGreaterThanOrEqual(0.75);
  });
});

describe('the builtin agent and the returns question (issue 15)', () => {
  const companyId = randomUUID();
  const agentId = randomUUID();
  const T = new Date().toISOString();
  const HANDOFF = 'A colleague will get back to you.';

  /** A conversation of one integration whose agent uses the builtin provider; the customer sent `texts` in one burst. */
  async function replyTo(texts: string[]) {
    const store = new MemoryEventStore();
    await store.append(integrationStream(1), [
      {
        id: randomUUID(),
        type: 'IntegrationCreated',
        data: { integrationId: 1, companyId, connectorType: 'msgplatform', name: 'P', apiUrl: null, apiToken: null, webhookSecret: null, active: true, agentId, allowedOrigins: [], at: T },
      },
    ], 'no_stream');
    const conversationId = randomUUID();
    const messageIds = texts.map(() => randomUUID());
    await store.append(conversationStream(conversationId), [
      { id: randomUUID(), type: 'ConversationStarted', data: { conversationId, companyId, integrationId: 1, connectorType: 'msgplatform', customer: { clientId: 'c', channelId: 1, transport: 'telegram' }, stageId: null, at: T } },
      { id: randomUUID(), type: 'AiSessionOpened', data: { sessionId: randomUUID(), at: T } },
      ...texts.map((text, i) => ({ id: randomUUID(), type: 'MessageReceived', data: { messageId: messageIds[i], dedupeKey: `msg:${messageIds[i]}`, dedupeUntil: null, text, platform: {}, at: T } })),
    ], 'no_stream');

    const index = buildIndex();
    const bus = createInProcessBus();
    const worker = await startReplyWorker({
      eventStore: store,
      clock: { now: () => new Date() },
      logger: silentLogger,
      bus,
      loadAgent: async () => ({ agentId, companyId, active: true, name: 'Shop', systemPrompt: 'Be brief.', model: null, temperature: 0, useKnowledgeBase: true, handoffMessage: HANDOFF }),
      loadLlm: async () => ({ kind: 'builtin', provider: createBuiltinLlm(), model: null }),
      // What the customer replies do (src/workers/replies/replyWorker.ts, startCustomerReplies): the company's index, the fields the LLM port takes.
      searchKnowledge: async (company, query, limit) =>
        index.search(company === companyId ? COMPANY : company, query, { limit }).map((r) => ({ title: r.title, text: r.text, score: r.score, coverage: r.coverage })),
      pricing: { table: {}, defaultPrice: { inputMicrosPer1K: 0, outputMicrosPer1K: 0 } } as never,
      burstWindowMs: 0,
      llmRetryDelaysMs: [],
      maxDeliver: 3,
      backoffMs: [10],
    });
    try {
      const last = messageIds.at(-1)!;
      await bus.publish(GENERATE_REPLY, { conversationId, messageId: last, companyId }, { dedupeId: last });
      await expect.poll(async () => (await store.readStream(conversationStream(conversationId))).map((e) => e.type), { timeout: 5000 }).toContain('AgentReplied');
      const replied = (await store.readStream(conversationStream(conversationId))).find((e) => e.type === 'AgentReplied')!;
      return replied.data as { text: string; handoff?: boolean };
    } finally {
      await worker.stop();
      await bus.close();
    }
  }

  const returnsDocument = fixture.documents.find((d) => d.title === 'Returns')!;

  it('answers "What are your return rules?" with the Returns passage, not the handoff message', async () => {
    const reply = await replyTo(['What are your return rules?']);
    expect(reply.text).not.toBe(HANDOFF);
    expect(reply.handoff).not.toBe(true);
    expect(returnsDocument.content).toContain(reply.text.slice(0, 60));
  });

  it('answers it too when the customer greeted first in the same burst ("Hi!" + the question)', async () => {
    const reply = await replyTo(['Hi!', 'What are your return rules?']);
    expect(reply.text).not.toBe(HANDOFF);
    expect(returnsDocument.content).toContain(reply.text.slice(0, 60));
  });
});
