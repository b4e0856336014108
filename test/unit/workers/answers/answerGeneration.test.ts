import { describe, expect, it } from 'vitest';
import { loadPricing } from '../../../../src/domain/credits/decider.js';
import { LlmError, type LlmProvider, type LlmRequest } from '../../../../src/ports/llm.js';
import { AnswerStopped, generateAnswer, recordedFieldsOf, sourcesOf } from '../../../../src/workers/answers/answerGeneration.js';
import { createBuiltinLlm } from '../../../../src/infrastructure/llm/builtinLlm.js';

const silent = { info() {}, warn() {}, error() {}, debug() {}, child: () => silent } as never;
const agent = { systemPrompt: 'Be brief.', temperature: 0.2, useKnowledgeBase: true, handoffMessage: 'A colleague will reply.' };
const passages = [
  { title: 'Returns', text: 'Returns within 30 days.', score: 7.5, documentId: 'doc-r', chunkIndex: 2 },
  { title: 'Shipping', text: 'We ship to Norway.', score: 3.1, documentId: 'doc-s', chunkIndex: 0 },
];
const deps = () => ({
  searchKnowledge: async () => passages,
  pricing: loadPricing(),
  llmRetryDelaysMs: [1, 1],
  logger: silent,
});

function scripted(...answers: Array<Error | { text: string; inputTokens: number; outputTokens: number }>): LlmProvider & { requests: LlmRequest[] } {
  const requests: LlmRequest[] = [];
  return {
    requests,
    async complete(request) {
      requests.push(request);
      const next = answers.shift()!;
      if (next instanceof Error) throw next;
      return { text: next.text, model: 'gpt-4o-mini-2024-07-18', usage: { inputTokens: next.inputTokens, outputTokens: next.outputTokens } };
    },
    async testConnection() {
      return { ok: true, latencyMs: 0 };
    },
  };
}

describe('generating an answer (customer reply, playground, replay)', () => {
  it('given an OpenAI-compatible model that used the prompt, then every passage given is a source and the cost is the model price', async () => {
    const provider = scripted(new LlmError('server_error', 'boom', true), { text: 'Within 30 days.', inputTokens: 1000, outputTokens: 100 });
    const { response, provenance } = await generateAnswer(deps(), { companyId: 'c', provider, model: 'gpt-4o-mini', agent, messages: [{ role: 'user', content: 'returns?' }], question: 'returns?' });
    expect(response.text).toBe('Within 30 days.');
    expect(provider.requests).toHaveLength(2); // the retryable failure was retried
    expect(provider.requests[1]!.passages).toEqual(passages);
    // gpt-4o-mini: 150 micros per 1K input, 600 per 1K output → 150 + 60.
    expect(provenance).toEqual({
      sources: [
        { documentId: 'doc-r', title: 'Returns', chunkIndex: 2, score: 7.5 },
        { documentId: 'doc-s', title: 'Shipping', chunkIndex: 0, score: 3.1 },
      ],
      latencyMs: expect.any(Number),
      costMicros: 210,
      usageEstimated: false,
    });
  });

  it('given the builtin provider, then only the passage it quoted is a source, and a handoff has none', async () => {
    const builtin = createBuiltinLlm();
    const quoted = await generateAnswer(deps(), { companyId: 'c', provider: builtin, model: 'builtin', agent, messages: [{ role: 'user', content: 'Do you ship to Norway?' }], question: 'ship Norway' });
    expect(quoted.provenance.sources).toEqual([{ documentId: 'doc-s', title: 'Shipping', chunkIndex: 0, score: 3.1 }]);
    expect(quoted.provenance.costMicros).toBe(0);
    const handoff = await generateAnswer(deps(), { companyId: 'c', provider: builtin, model: 'builtin', agent, messages: [{ role: 'user', content: 'bitcoin payments?' }], question: 'bitcoin' });
    expect(handoff.response.handoff).toBe(true);
    expect(handoff.provenance.sources).toEqual([]);
  });

  it('given an agent without the knowledge base, then nothing is searched and there are no sources', async () => {
    const provider = scripted({ text: 'Hi', inputTokens: 10, outputTokens: 2 });
    const result = await generateAnswer({ ...deps(), searchKnowledge: async () => { throw new Error('must not search'); } }, { companyId: 'c', provider, model: 'm', agent: { ...agent, useKnowledgeBase: false }, messages: [], question: 'q' });
    expect(result.provenance.sources).toEqual([]);
    expect(provider.requests[0]!.passages).toEqual([]);
  });

  it('leaves out passages that are not knowledge-base chunks and indexes the provider does not know', () => {
    expect(sourcesOf([{ title: 'x', text: 't', score: 1 }, ...passages], [0, 2, 9])).toEqual([{ documentId: 'doc-s', title: 'Shipping', chunkIndex: 0, score: 3.1 }]);
  });

  it('a non-retryable failure is thrown at once', async () => {
    const provider = scripted(new LlmError('auth', 'bad key', false));
    await expect(generateAnswer(deps(), { companyId: 'c', provider, model: 'm', agent, messages: [], question: 'q' })).rejects.toMatchObject({ kind: 'auth' });
    expect(provider.requests).toHaveLength(1);
  });
});

describe('what an answer is charged for: nothing the company\u2019s endpoint reports can zero or cheapen it', () => {
  const messages = [{ role: 'system' as const, content: 'Be brief. '.repeat(40) }, { role: 'user' as const, content: 'How long do returns take?' }];
  const prompt = 'Be brief. '.repeat(40).length + 'How long do returns take?'.length + passages.reduce((n, p) => n + p.title.length + p.text.length, 0);
  const text = 'Returns are refunded within 30 days of arrival.';
  const endpoint = (model: string, usage: { inputTokens: number; outputTokens: number }): LlmProvider => ({
    complete: async () => ({ text, model, usage }),
    testConnection: async () => ({ ok: true, latencyMs: 0 }),
  });

  it('given an endpoint that reports 0 usage, then the answer is charged on the estimate from the prompt and the answer', async () => {
    const answer = await generateAnswer(deps(), { companyId: 'c', provider: endpoint('gpt-4o-mini', { inputTokens: 0, outputTokens: 0 }), model: 'gpt-4o-mini', agent, messages, question: 'returns?' });
    expect(answer.billed).toEqual({ model: 'gpt-4o-mini', inputTokens: Math.ceil(prompt / 4), outputTokens: Math.ceil(text.length / 4), usageSource: 'estimated' });
    expect(answer.provenance.costMicros).toBeGreaterThan(0);
    expect(answer.provenance.usageEstimated).toBe(true);
    // What the reply records is what it is charged for.
    expect(recordedFieldsOf(answer)).toMatchObject({ model: 'gpt-4o-mini', inputTokens: Math.ceil(prompt / 4), outputTokens: Math.ceil(text.length / 4) });
  });

  it('given an endpoint that reports a cheaper model than the one configured, then the configured model\u2019s price is charged', async () => {
    const answer = await generateAnswer(deps(), { companyId: 'c', provider: endpoint('gpt-4o-mini', { inputTokens: 2000, outputTokens: 500 }), model: 'gpt-4o', agent, messages, question: 'returns?' });
    expect(answer.billed).toEqual({ model: 'gpt-4o', inputTokens: 2000, outputTokens: 500, usageSource: 'reported' });
    // gpt-4o: 2500 micros per 1K input, 10000 per 1K output (gpt-4o-mini would be 300 + 300).
    expect(answer.provenance.costMicros).toBe(5000 + 5000);
    expect(answer.provenance.usageEstimated).toBe(false);
  });

  it('given the builtin provider, then nothing is charged and nothing estimated', async () => {
    const answer = await generateAnswer(deps(), { companyId: 'c', provider: createBuiltinLlm(), model: 'gpt-4o', agent, messages: [{ role: 'user', content: 'Do you ship to Norway?' }], question: 'ship Norway' });
    expect(answer.billed).toMatchObject({ inputTokens: 0, outputTokens: 0, usageSource: 'reported' });
    expect(answer.provenance.costMicros).toBe(0);
  });
});

describe('an answer stopped while it is written (a takeover, a teammate leaving, a cancelled replay)', () => {
  it('given two attempts that wrote 3 and 5 characters, when the signal stops the second, then AnswerStopped estimates the prompt twice and the 8 characters', async () => {
    const controller = new AbortController();
    let attempt = 0;
    const provider: LlmProvider = {
      async complete(request) {
        if (attempt++ === 0) {
          request.onDelta?.('abc');
          throw new LlmError('server_error', 'broke off', true);
        }
        request.onDelta?.('defgh');
        controller.abort();
        throw new LlmError('aborted', 'stopped', false);
      },
      async testConnection() {
        return { ok: true, latencyMs: 0 };
      },
    };
    const messages = [{ role: 'system' as const, content: 'Be brief.' }, { role: 'user' as const, content: 'returns?' }];
    const written: string[] = [];
    const stopped = await generateAnswer(deps(), {
      companyId: 'c',
      provider,
      model: 'gpt-4o-mini',
      agent,
      messages,
      question: 'returns?',
      signal: controller.signal,
      onDelta: (text) => written.push(text),
    }).catch((err: unknown) => err);
    expect(written).toEqual(['abc', 'defgh']);
    expect(stopped).toBeInstanceOf(AnswerStopped);
    const prompt = 'Be brief.'.length + 'returns?'.length + passages.reduce((n, p) => n + p.title.length + p.text.length, 0);
    expect((stopped as AnswerStopped).usage).toEqual({ inputTokens: Math.ceil((2 * prompt) / 4), outputTokens: 2 });
    expect((stopped as AnswerStopped).model).toBe('gpt-4o-mini');
  });

  it('given a failure without the signal stopping it, then the provider error is thrown as it was', async () => {
    const controller = new AbortController();
    const provider = scripted(new LlmError('auth', 'bad key', false));
    await expect(
      generateAnswer(deps(), { companyId: 'c', provider, model: 'm', agent, messages: [], question: 'q', signal: controller.signal, onDelta: () => {} }),
    ).rejects.toMatchObject({ kind: 'auth' });
  });
});

describe('generateAnswer: follow-up questions are searched resolved with the conversation', () => {
  const searchesOf = (results: (query: string) => typeof passages) => {
    const queries: string[] = [];
    return { queries, deps: { ...deps(), searchKnowledge: async (_c: string, query: string) => (queries.push(query), results(query)) } };
  };
  const history = (...turns: string[]) => [{ role: 'system' as const, content: 'Be brief.' }, ...turns.map((content, i) => ({ role: i % 2 === 0 ? ('user' as const) : ('assistant' as const), content }))];

  it('given a question referring back, then the search and the builtin provider use it with the earlier question\'s terms', async () => {
    const { queries, deps: d } = searchesOf(() => passages);
    const provider = scripted({ text: 'ok', inputTokens: 1, outputTokens: 1 });
    await generateAnswer(d, { companyId: 'c', provider, model: 'm', agent, messages: history('How do returns work?', 'Within 30 days.', 'Is it free?'), question: 'Is it free?' });
    expect(queries).toEqual(['Is it free? returns work']);
    expect(provider.requests[0]!.searchQuery).toBe('Is it free? returns work');
  });

  it('given an elliptical follow-up, then both readings are searched and the stronger evidence wins; a standalone question is searched once, as written', async () => {
    const strong = [{ ...passages[1]!, evidence: 0.9 }];
    const weak = [{ ...passages[0]!, evidence: 0.3 }];
    const { queries, deps: d } = searchesOf((q) => (q.includes('shipping') ? strong : weak));
    const answer = await generateAnswer(d, { companyId: 'c', provider: createBuiltinLlm(), model: 'builtin', agent, messages: history('What does shipping cost?', '4.95 EUR.', 'And express?'), question: 'And express?' });
    expect(queries).toEqual(['express?', 'express? shipping cost']);
    expect(answer.passages).toEqual(strong);
    const alone = searchesOf(() => passages);
    await generateAnswer(alone.deps, { companyId: 'c', provider: scripted({ text: 'ok', inputTokens: 1, outputTokens: 1 }), model: 'm', agent, messages: history('What does shipping cost?', '4.95 EUR.', 'Which payment methods do you accept?'), question: 'Which payment methods do you accept?' });
    expect(alone.queries).toEqual(['Which payment methods do you accept?']);
  });
});
