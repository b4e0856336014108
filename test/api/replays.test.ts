import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVIDENCE_THRESHOLDS } from '../../src/domain/answers/evidence.js';
import { recordReplayAnswer } from '../../src/commands/replays/replays.js';
import { silentLogger } from '../../src/ports/logger.js';
import { RUN_REPLAY } from '../../src/workers/replays/replayJobs.js';
import { signUp } from '../support/api.js';
import { startFakeLlm, type ChatCompletionBody, type FakeLlm } from '../support/fakeLlm.js';
import { seedConversation, type SeedTurn } from '../support/replayFixtures.js';
import { startTestServer, uniqueEmail, type TestServer } from '../support/testServer.js';

/**
 * Replay evaluation: a draft agent answers past customer turns again, next to what was recorded, after the user
 * confirmed the estimated cost; it runs as bus jobs with progress, can be cancelled, is charged as usage, and
 * never writes a conversation nor sends anything.
 */
let server: TestServer;
let llm: FakeLlm;
let hung: FakeLlm;

const PRICES = { 'gpt-4o-mini': { inputMicrosPer1K: 1000, outputMicrosPer1K: 2000 }, pricey: { inputMicrosPer1K: 10_000_000, outputMicrosPer1K: 10_000_000 } };

beforeAll(async () => {
  llm = await startFakeLlm({ reply: (body) => `Draft says: ${lastUser(body)}` });
  hung = await startFakeLlm({ delayMs: 10 * 60_000 });
  server = await startTestServer({
    ALLOW_PRIVATE_PLATFORM_URLS: 'true',
    LLM_PRICE_TABLE: JSON.stringify(PRICES),
    LLM_TIMEOUT_MS: '120000',
    LLM_MAX_RETRIES: '0',
    LLM_RETRY_DELAYS_MS: '10',
    // One replay slot per company: a call left hanging after a cancel would hold it and block the next replay.
    WORKER_COMPANY_CONCURRENCY: '1',
  });
}, 30_000);
afterAll(async () => {
  await server?.close();
  await Promise.all([llm?.close(), hung?.close()]);
});

const lastUser = (body: ChatCompletionBody) => String(body.messages?.filter((m) => m.role === 'user').at(-1)?.content ?? '');
const promptText = (body: unknown) => ((body as ChatCompletionBody).messages ?? []).map((m) => String(m.content)).join('\n');

const draft = { systemPrompt: 'You are the draft. Be brief.', temperature: 0.1, useKnowledgeBase: false };

async function company(name: string, llmUrl?: string, model = 'gpt-4o-mini') {
  const c = await signUp(server, name, uniqueEmail(name));
  if (llmUrl) expect((await c.call('PUT', '/api/llm-config', { provider: 'openai', baseUrl: llmUrl, apiKey: 'sk-replay', model })).statusCode).toBe(200);
  const seed = (turns: SeedTurn[]) => seedConversation(server.adapters.eventStore, c.company.companyId, turns);
  const estimate = async (conversationIds: string[], d: object = draft) => c.call('POST', '/api/replays/estimate', { draft: d, conversationIds });
  const start = async (conversationIds: string[], d: object = draft) => {
    const e = await estimate(conversationIds, d);
    expect(e.statusCode).toBe(200);
    const res = await c.call('POST', '/api/replays', { draft: d, conversationIds, confirmedCostMicros: e.json().estimate.costMicros });
    expect(res.statusCode).toBe(201);
    return res.json().replay as { id: string; status: string; progress: { done: number; total: number } };
  };
  const get = async (id: string, query = '') => c.call('GET', `/api/replays/${id}${query}`);
  const settled = async (id: string) => {
    await expect.poll(async () => (await get(id)).json().replay.status, { timeout: 20_000, interval: 50 }).not.toBe('running');
    return (await get(id, '?limit=200')).json();
  };
  return { ...c, seed, estimate, start, get, settled };
}

const replayEventsOf = async (id: string) => (await server.adapters.eventStore.readStream(`replay-${id}`)).map((e) => e.type);

describe('estimate', () => {
  it('counts the customer turns (a burst answered together is one) and prices them at the model; 0 on the builtin provider', async () => {
    const builtin = await company('EstBuiltin');
    const conv = await builtin.seed([{ customer: ['hi', 'are you there?'], answer: { agent: 'Hello!' } }, { customer: ['price?'], answer: { operator: 'It is 5 EUR' } }, { customer: ['thanks'] }]);
    const free = await builtin.estimate([conv.conversationId]);
    expect(free.statusCode).toBe(200);
    expect(free.json().estimate).toMatchObject({ messages: 3, costMicros: 0, provider: 'builtin', conversations: [{ conversationId: conv.conversationId, messages: 3 }] });

    const paid = await company('EstPaid', llm.url);
    const c2 = await paid.seed([{ customer: ['hello there'], answer: { agent: 'Hi' } }, { customer: ['what do you sell?'] }]);
    const e = (await paid.estimate([c2.conversationId])).json().estimate;
    expect(e).toMatchObject({ messages: 2, provider: 'openai', model: 'gpt-4o-mini' });
    expect(e.inputTokens).toBeGreaterThan(0);
    // At 1 micro-dollar per input token and 2 per output token.
    expect(e.costMicros).toBe(e.inputTokens + 2 * e.outputTokens);
    expect(llm.completionRequests).toHaveLength(0);
  });

  it('400 on a malformed draft or selection; 404 on an unknown conversation or agent', async () => {
    const c = await company('Malformed');
    const conv = await c.seed([{ customer: ['hi'] }]);
    const bad = [
      { draft: { ...draft, temperature: 5 }, conversationIds: [conv.conversationId] },
      { draft: { temperature: 0.1, useKnowledgeBase: false }, conversationIds: [conv.conversationId] },
      { draft: { ...draft, systemPrompt: '   ' }, conversationIds: [conv.conversationId] },
      { draft: { ...draft, extra: true }, conversationIds: [conv.conversationId] },
      { draft, conversationIds: [] },
      { draft, conversationIds: ['not-a-uuid'] },
      { draft, conversationIds: Array.from({ length: 21 }, () => conv.conversationId) },
    ];
    for (const payload of bad) {
      const res = await c.call('POST', '/api/replays/estimate', payload);
      expect(res.statusCode, JSON.stringify(payload).slice(0, 120)).toBe(400);
      expect(res.json().error.code).toBe('VALIDATION_ERROR');
    }
    const unknown = await c.estimate(['00000000-0000-4000-8000-000000000000']);
    expect(unknown.statusCode).toBe(404);
    const agent = await c.estimate([conv.conversationId], { ...draft, basedOnAgentId: '00000000-0000-4000-8000-000000000000' });
    expect(agent.statusCode).toBe(404);
    const create = await c.call('POST', '/api/replays', { draft, conversationIds: [conv.conversationId] });
    expect(create.statusCode).toBe(400);
  });
});

describe('confirming the cost', () => {
  it('409 CONFLICT naming the new estimate when the confirmation is below it; nothing starts', async () => {
    const c = await company('Confirm', llm.url);
    const conv = await c.seed([{ customer: ['one'], answer: { agent: 'a' } }, { customer: ['two'] }]);
    const e = (await c.estimate([conv.conversationId])).json().estimate;
    expect(e.costMicros).toBeGreaterThan(0);
    const res = await c.call('POST', '/api/replays', { draft, conversationIds: [conv.conversationId], confirmedCostMicros: e.costMicros - 1 });
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toEqual({ code: 'CONFLICT', message: expect.stringContaining(`${e.costMicros} micro-dollars for 2 messages`) });
    expect((await c.call('GET', '/api/replays')).json().replays).toEqual([]);
    expect(llm.completionRequests.filter((r) => promptText(r.body).includes('You are the draft') && lastUser(r.body as ChatCompletionBody) === 'two')).toHaveLength(0);
  });
});

describe('a replay run', () => {
  it("answers each turn with the draft, next to what was recorded, from history up to that turn only; charged once per answer; no conversation written, nothing sent", async () => {
    const c = await company('Run', llm.url);
    const provenance = { sources: [{ documentId: 'doc-1', title: 'Prices', chunkIndex: 2, score: 0.9 }], latencyMs: 40, costMicros: 12, usageEstimated: false };
    const conv = await c.seed([
      { customer: ['alpha question'], answer: { agent: 'alpha recorded answer', provenance } },
      { customer: ['bravo part one', 'bravo part two'], answer: { agent: 'bravo recorded answer' } },
      { customer: ['charlie question'], answer: { operator: 'charlie operator answer' } },
      { customer: ['delta question'], answer: { unanswered: 'the language model failed (timeout)' } },
      { customer: ['echo question'] },
    ]);
    // The seeded conversation's own effects (its replies charged, its customer profile) land first.
    await expect.poll(async () => (await c.call('GET', '/api/credits')).json().credits.ledger.length, { timeout: 5000 }).toBe(3);
    await new Promise((r) => setTimeout(r, 200));
    const head = await server.adapters.eventStore.headPosition();
    const convBefore = await server.adapters.eventStore.readStream(`conversation-${conv.conversationId}`);
    const balanceBefore = 5_000_000;
    const requestsBefore = llm.completionRequests.length;

    const replay = await c.start([conv.conversationId], { ...draft, model: 'gpt-4o-mini' });
    expect(replay).toMatchObject({ status: 'running', progress: { done: 0, total: 5 } });
    const result = await c.settled(replay.id);
    expect(result.replay).toMatchObject({ status: 'completed', progress: { done: 5, total: 5 }, failedAnswers: 0 });
    expect(result.answers.map((a: { customerText: string }) => a.customerText)).toEqual([
      'alpha question',
      'bravo part one\nbravo part two',
      'charlie question',
      'delta question',
      'echo question',
    ]);
    expect(result.answers.map((a: { recorded: unknown }) => a.recorded)).toEqual([
      expect.objectContaining({ kind: 'agent', text: 'alpha recorded answer', model: 'gpt-4o-mini', inputTokens: 120, outputTokens: 30, provenance }),
      expect.objectContaining({ kind: 'agent', text: 'bravo recorded answer' }),
      { kind: 'operator', text: 'charlie operator answer' },
      { kind: 'unanswered', reason: 'the language model failed (timeout)' },
      { kind: 'none' },
    ]);
    for (const a of result.answers) {
      expect(a.draft).toMatchObject({ status: 'answered', text: `Draft says: ${a.customerText}`, model: 'gpt-4o-mini', provenance: { sources: [], costMicros: expect.any(Number) } });
      expect(a.draft.provenance.costMicros).toBeGreaterThan(0);
    }
    expect(result.answers[1].messageIds).toEqual(conv.messageIds[1]);

    // History up to that turn only: no later customer message (nor later answer) is ever in a turn's prompt.
    const order = ['alpha', 'bravo', 'charlie', 'delta', 'echo'];
    const prompts = llm.completionRequests.slice(requestsBefore).map((r) => promptText(r.body));
    expect(prompts).toHaveLength(5);
    for (const prompt of prompts) {
      const at = order.findIndex((w) => prompt.split('\n').at(-1)!.startsWith(w));
      expect(at).toBeGreaterThanOrEqual(0);
      for (const later of order.slice(at + 1)) expect(prompt).not.toContain(later);
      for (const earlier of order.slice(0, at)) expect(prompt).toContain(`${earlier} question`.replace('bravo question', 'bravo part one'));
      expect(prompt).toContain('You are the draft');
    }
    expect(prompts.find((p) => p.endsWith('charlie question'))).toContain('bravo recorded answer');
    expect(prompts.find((p) => p.endsWith('charlie question'))).not.toContain('charlie operator answer');

    // Charged as spent, once per answer, at the model's price; the ledger says it was a replay.
    const spent = result.answers.reduce((n: number, a: { draft: { provenance: { costMicros: number } } }) => n + a.draft.provenance.costMicros, 0);
    expect(result.replay.spentCostMicros).toBe(spent);
    const credits = (await c.call('GET', '/api/credits')).json().credits;
    const replayCharges = credits.ledger.filter((l: { reason: string }) => l.reason.startsWith('Replay answer'));
    expect(replayCharges).toHaveLength(5);
    // Charged to the company, not to the replayed conversation (nor its integration or agent).
    expect(replayCharges.every((l: { conversationId?: string }) => l.conversationId === undefined)).toBe(true);
    expect(replayCharges.reduce((n: number, l: { deltaMicros: number }) => n - l.deltaMicros, 0)).toBe(spent);
    // (The seeded conversation's two recorded AI replies are charged too, as any stored reply is.)
    const recordedReplies = credits.ledger.filter((l: { reason: string }) => l.reason.startsWith('AI reply')).reduce((n: number, l: { deltaMicros: number }) => n - l.deltaMicros, 0);
    expect(credits.balanceMicros).toBe(balanceBefore - spent - recordedReplies);

    // Nothing but the replay's own stream and the company's credits (with each charge's guard, charge-<replyId>)
    // was written; the conversation is as it was.
    const written = await server.adapters.eventStore.readAll({ after: head });
    expect(new Set(written.map((e) => e.stream.split('-')[0]))).toEqual(new Set(['replay', 'credits', 'charge']));
    expect(await server.adapters.eventStore.readStream(`conversation-${conv.conversationId}`)).toHaveLength(convBefore.length);
    expect(written.some((e) => ['AgentReplied', 'MessageSendAttempted', 'MessageDelivered'].includes(e.type))).toBe(false);
  });

  it('a redelivered job or answer records each answer once (and calls the model no more)', async () => {
    const c = await company('Redelivery', llm.url);
    const conv = await c.seed([{ customer: ['first'], answer: { agent: 'ok' } }, { customer: ['second'] }]);
    const replay = await c.start([conv.conversationId]);
    await c.settled(replay.id);
    const events = await replayEventsOf(replay.id);
    const calls = llm.completionRequests.length;
    // The job delivered again (a redelivery after a lost ack) and the answer recorded again (a retried append).
    await server.adapters.bus.publish(RUN_REPLAY, { replayId: replay.id, companyId: c.company.companyId, conversationId: conv.conversationId }, { dedupeId: 'redelivered-1' });
    const again = await recordReplayAnswer({ eventStore: server.adapters.eventStore, clock: { now: () => new Date() }, logger: silentLogger }, {
      replayId: replay.id,
      companyId: c.company.companyId,
      conversationId: conv.conversationId,
      turn: 0,
      messageIds: conv.messageIds[0]!,
      customerText: 'first',
      customerAt: new Date().toISOString(),
      recorded: { kind: 'none' },
      draft: { status: 'failed', error: 'x' },
    });
    expect(again.events).toEqual([]);
    await new Promise((r) => setTimeout(r, 300));
    expect(await replayEventsOf(replay.id)).toEqual(events);
    expect(events.filter((t) => t === 'ReplayAnswerRecorded')).toHaveLength(2);
    expect(events.filter((t) => t === 'ReplayCompleted')).toHaveLength(1);
    expect(llm.completionRequests.length).toBe(calls);
    const ledger = (await c.call('GET', '/api/credits')).json().credits.ledger;
    expect(ledger.filter((l: { reason: string }) => l.reason.startsWith('Replay answer'))).toHaveLength(2);
  });

  it('the largest selection: 20 conversations, each its last 50 turns (1000 answers), on the builtin provider, free', async () => {
    const c = await company('Largest');
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const turns: SeedTurn[] = Array.from({ length: 55 }, (_, t) => ({ customer: [`c${i} t${t}`], answer: { agent: `r${i} ${t}` } }));
      ids.push((await c.seed(turns)).conversationId);
    }
    const e = (await c.estimate(ids)).json().estimate;
    expect(e).toMatchObject({ messages: 1000, costMicros: 0 });
    const replay = await c.start(ids);
    expect(replay.progress).toEqual({ done: 0, total: 1000 });
    await expect.poll(async () => (await c.get(replay.id)).json().replay.status, { timeout: 60_000, interval: 200 }).toBe('completed');
    const first = (await c.get(replay.id, '?limit=200')).json();
    expect(first.replay.progress).toEqual({ done: 1000, total: 1000 });
    expect(first.answers).toHaveLength(200);
    // The oldest 5 turns of each conversation are left out: its last 50 are replayed, in order.
    expect(first.answers[0].customerText).toBe('c0 t5');
    expect(first.answers[49].customerText).toBe('c0 t54');
    expect(first.answers[50].customerText).toBe('c1 t5');
    let cursor = first.nextCursor as string | null;
    let seen = first.answers.length;
    while (cursor) {
      const page = (await c.get(replay.id, `?limit=200&cursor=${encodeURIComponent(cursor)}`)).json();
      seen += page.answers.length;
      cursor = page.nextCursor;
    }
    expect(seen).toBe(1000);
  }, 90_000);
});

describe('replaying with another answer setting', () => {
  it('given past questions, when replayed at strict and at lenient, then each draft answer records the setting, the evidence it needed, and hands off exactly when its evidence is below that', async () => {
    const c = await company('Setting');
    const doc = await c.call('POST', '/api/knowledge-base/documents', { title: 'Shipping', content: '# Shipping\n\nWe ship to Norway, Sweden and Denmark within 3 business days. Shipping is free on orders over 50 euros.' });
    expect(doc.statusCode).toBe(201);
    const agent = (await c.call('POST', '/api/agents', { name: 'Ava', answerThreshold: 'lenient' })).json().agent;
    const conv = await c.seed([
      { customer: ['Do you ship to Norway?'], answer: { agent: 'We ship to Norway, Sweden and Denmark within 3 business days.' } },
      { customer: ['Is shipping free?'], answer: { operator: 'Over 50 euros, yes.' } },
      { customer: ['Do you ship to Finland?'] },
    ]);
    const kb = { ...draft, useKnowledgeBase: true };
    const run = async (d: object) => {
      const replay = await c.start([conv.conversationId], d);
      const result = await c.settled(replay.id);
      expect(result.replay.status).toBe('completed');
      return result;
    };
    const strict = await run({ ...kb, answerThreshold: 'strict' });
    // Based on an agent without a setting of its own in the draft: the agent's (lenient).
    const lenient = await run({ ...kb, basedOnAgentId: agent.id });
    expect(strict.replay.draft).toMatchObject({ answerThreshold: 'strict', generalAnswers: false });
    expect(lenient.replay.draft).toMatchObject({ answerThreshold: 'lenient' });
    for (const [result, setting, needed] of [[strict, 'strict', EVIDENCE_THRESHOLDS.strict], [lenient, 'lenient', EVIDENCE_THRESHOLDS.lenient]] as const) {
      expect(result.answers).toHaveLength(3);
      for (const a of result.answers) {
        expect(a.draft).toMatchObject({ status: 'answered', provenance: { answerThreshold: setting, evidenceNeeded: needed, evidence: expect.any(Number) } });
        expect(a.draft.handoff, a.customerText).toBe(a.draft.provenance.evidence < needed);
      }
    }
    // The question the knowledge base answers is answered at both; the one it does not is handed off at both.
    const byText = (result: typeof strict, text: string) => result.answers.find((a: { customerText: string }) => a.customerText === text).draft;
    expect(byText(strict, 'Do you ship to Norway?').handoff).toBe(false);
    expect(byText(lenient, 'Do you ship to Finland?').handoff).toBe(true);
  });
});

describe('cancel', () => {
  it('during a run with a hung LLM: the call in flight is aborted, no further call starts, status cancelled', async () => {
    const c = await company('Cancel', hung.url);
    const conv = await c.seed([{ customer: ['one'], answer: { agent: '1' } }, { customer: ['two'], answer: { agent: '2' } }, { customer: ['three'] }]);
    const replay = await c.start([conv.conversationId]);
    await expect.poll(() => hung.completionRequests.length, { timeout: 10_000, interval: 20 }).toBe(1);
    const res = await c.call('POST', `/api/replays/${replay.id}/cancel`);
    expect(res.statusCode).toBe(200);
    expect(res.json().replay).toMatchObject({ status: 'cancelled', progress: { done: 0, total: 3 } });
    await new Promise((r) => setTimeout(r, 500));
    expect(hung.completionRequests).toHaveLength(1);
    expect((await c.get(replay.id)).json()).toMatchObject({ replay: { status: 'cancelled', progress: { done: 0 } }, answers: [] });
    expect((await replayEventsOf(replay.id)).filter((t) => t !== 'ReplayRequested')).toEqual(['ReplayCancelled']);
    // The aborted call was sent and is billed by the provider without a usage report: charged on the prompt's estimate.
    const charges = async () =>
      (await server.adapters.eventStore.readStream(`credits-${c.company.companyId}`))        .filter((e) => e.type === 'CreditsConsumed' && (e.data as { replayId?: string }).replayId === replay.id)
        .map((e) => e.data as Record<string, any>);
    await expect.poll(charges, { timeout: 5000 }).toHaveLength(1);
    expect((await charges())[0]).toMatchObject({ replayId: replay.id, conversationId: '', model: 'gpt-4o-mini', outputTokens: 0 });
    expect((await charges())[0]!.inputTokens).toBeGreaterThanOrEqual(Math.ceil(draft.systemPrompt.length / 4));

    // The aborted call gave its company's only replay slot back: the next replay runs (against a healthy model).
    expect((await c.call('PUT', '/api/llm-config', { provider: 'openai', baseUrl: llm.url, apiKey: 'sk-replay', model: 'gpt-4o-mini' })).statusCode).toBe(200);
    const next = await c.start([conv.conversationId]);
    expect((await c.settled(next.id)).replay).toMatchObject({ status: 'completed', progress: { done: 3, total: 3 } });
  }, 30_000);

  it('two concurrent cancels: both answer cancelled, one ReplayCancelled is stored; a finished replay cannot be cancelled', async () => {
    const c = await company('DoubleCancel', hung.url);
    const conv = await c.seed([{ customer: ['one'] }]);
    const replay = await c.start([conv.conversationId]);
    const [a, b] = await Promise.all([c.call('POST', `/api/replays/${replay.id}/cancel`), c.call('POST', `/api/replays/${replay.id}/cancel`)]);
    expect([a.statusCode, b.statusCode]).toEqual([200, 200]);
    expect([a.json().replay.status, b.json().replay.status]).toEqual(['cancelled', 'cancelled']);
    expect((await replayEventsOf(replay.id)).filter((t) => t === 'ReplayCancelled')).toHaveLength(1);
  });

  it('cancel racing the last answer: exactly one of completed or cancelled, never both, and no answer after a cancel', async () => {
    const c = await company('Race', llm.url);
    const conv = await c.seed([{ customer: ['only'] }]);
    const outcomes: string[] = [];
    for (const delayMs of [0, 5, 10, 20, 40, 80]) {
      llm.delayMs = 60;
      const replay = await c.start([conv.conversationId]);
      await new Promise((r) => setTimeout(r, delayMs));
      const cancel = await c.call('POST', `/api/replays/${replay.id}/cancel`);
      const final = await c.settled(replay.id);
      const events = await replayEventsOf(replay.id);
      const terminal = events.filter((t) => t === 'ReplayCompleted' || t === 'ReplayCancelled');
      expect(terminal).toHaveLength(1);
      if (terminal[0] === 'ReplayCancelled') {
        expect(cancel.statusCode).toBe(200);
        expect(events).not.toContain('ReplayAnswerRecorded');
        expect(final.replay.status).toBe('cancelled');
      } else {
        expect(cancel.statusCode).toBe(409);
        expect(cancel.json().error.code).toBe('CONFLICT');
        expect(final.replay).toMatchObject({ status: 'completed', progress: { done: 1, total: 1 } });
      }
      outcomes.push(terminal[0]!);
    }
    llm.delayMs = 0;
    expect(outcomes.length).toBe(6);
  }, 30_000);
});

describe('out of credits mid-run', () => {
  it('the replay stops with status failed (credits_exhausted) and no further call', async () => {
    const c = await company('Broke', llm.url, 'pricey');
    const conv = await c.seed(Array.from({ length: 6 }, (_, i) => ({ customer: [`question number ${i}`], answer: { operator: `answer ${i}` } })));
    const replay = await c.start([conv.conversationId], { ...draft, model: 'pricey' });
    const result = await c.settled(replay.id);
    expect(result.replay).toMatchObject({ status: 'failed', failure: { reason: 'credits_exhausted', message: expect.stringMatching(/out of credits/) } });
    expect(result.replay.progress.done).toBeGreaterThan(0);
    expect(result.replay.progress.done).toBeLessThan(6);
    expect((await c.call('GET', '/api/credits')).json().credits.balanceMicros).toBe(0);
  });
});

describe('tenants and roles', () => {
  it("another company can neither estimate with, read nor cancel a company's replay; lists are per company", async () => {
    const a = await company('TenantA');
    const b = await company('TenantB');
    const conv = await a.seed([{ customer: ['mine'] }]);
    const replay = await a.start([conv.conversationId]);
    expect((await b.estimate([conv.conversationId])).statusCode).toBe(404);
    expect((await b.call('POST', '/api/replays', { draft, conversationIds: [conv.conversationId], confirmedCostMicros: 0 })).statusCode).toBe(404);
    expect((await b.get(replay.id)).statusCode).toBe(404);
    expect((await b.call('POST', `/api/replays/${replay.id}/cancel`)).statusCode).toBe(404);
    expect((await b.call('GET', '/api/replays')).json().replays).toEqual([]);
    expect((await a.call('GET', '/api/replays')).json().replays.map((r: { id: string }) => r.id)).toEqual([replay.id]);
    expect((await a.get('not-an-id')).statusCode).toBe(404);
  });

  it('owners and admins start, estimate and cancel (they spend credits); an agent reads replays but may not start one', async () => {
    const owner = await company('Roles');
    const conv = await owner.seed([{ customer: ['hello'] }]);
    const replay = await owner.start([conv.conversationId]);
    const invited = await owner.call('POST', '/api/team/invitations', { email: uniqueEmail('replay-agent'), role: 'agent' });
    expect(invited.statusCode).toBe(201);
    const url = invited.json().invitationUrl as string;
    const token = url.slice(url.indexOf('#/accept-invitation/') + '#/accept-invitation/'.length);
    const accepted = await server.app.inject({ method: 'POST', url: '/api/auth/accept-invitation', payload: { token, name: 'Agent', password: 'agent password' } });
    expect(accepted.statusCode).toBe(200);
    const agentToken = accepted.json().session.access_token as string;
    const estimate = await owner.call('POST', '/api/replays/estimate', { draft, conversationIds: [conv.conversationId] }, agentToken);
    expect(estimate.statusCode).toBe(403);
    expect(estimate.json().error.code).toBe('FORBIDDEN');
    expect((await owner.call('POST', '/api/replays', { draft, conversationIds: [conv.conversationId], confirmedCostMicros: 0 }, agentToken)).statusCode).toBe(403);
    expect((await owner.call('POST', `/api/replays/${replay.id}/cancel`, undefined, agentToken)).statusCode).toBe(403);
    expect((await owner.call('GET', '/api/replays', undefined, agentToken)).json().replays.map((r: { id: string }) => r.id)).toEqual([replay.id]);
    expect((await owner.call('GET', `/api/replays/${replay.id}`, undefined, agentToken)).statusCode).toBe(200);
  });
});
