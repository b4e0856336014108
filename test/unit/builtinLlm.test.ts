import { describe, expect, it } from 'vitest';
import { chunkTexts } from '../../src/domain/knowledge/chunking.js';
import {
  createBuiltinLlm,
  DEFAULT_HANDOFF_MESSAGE,
  pickPassage,
  trimAnswer,
} from '../../src/infrastructure/llm/builtinLlm.js';
import { createKnowledgeIndex } from '../../src/infrastructure/search/knowledgeIndex.js';
import { BUILTIN_MODEL, LlmError, type LlmMessage } from '../../src/ports/llm.js';

const ask = (question: string): LlmMessage[] => [
  { role: 'system', content: 'You are the support agent of ACME.' },
  { role: 'user', content: 'Hello' },
  { role: 'assistant', content: 'Hi! How can I help?' },
  { role: 'user', content: question },
];

describe('builtin LLM', () => {
  const llm = createBuiltinLlm();

  it('answers with the best passage when it covers the question, body only, free', async () => {
    const response = await llm.complete({
      model: 'anything',
      messages: ask('How long do refunds take?'),
      passages: [
        { title: 'Refund policy', text: '## Timelines\n\nRefunds take 5 business days.', score: 7.2 },
        { title: 'Shipping', text: 'Delivery takes 2 to 4 days.', score: 1.1 },
      ],
      handoffMessage: 'A colleague will get back to you.',
    });
    expect(response).toEqual({
      text: 'Refunds take 5 business days.',
      usage: { inputTokens: 0, outputTokens: 0 },
      model: BUILTIN_MODEL,
      usedPassages: [0], // the answer's source: the refund policy, not the shipping passage
    });
  });

  it('hands off with the agent’s message when no passage is given or none covers the question', async () => {
    const none = await llm.complete({
      model: 'x',
      messages: ask('Can I pay with bitcoin?'),
      passages: [],
      handoffMessage: 'A colleague will get back to you.',
    });
    expect(none).toEqual({
      text: 'A colleague will get back to you.',
      usage: { inputTokens: 0, outputTokens: 0 },
      model: BUILTIN_MODEL,
      handoff: true,
      // Its own decision, for want of a confident answer (issue 26): its own reason in the queue and analytics.
      handoffReason: 'no confident answer',
      handoffCause: 'no_confident_answer',
      usedPassages: [],
    });

    // "pay" is one of three query terms (pay, bitcoin, crypto): 1/3 < 0.5 → handoff despite a high score.
    const weak = await llm.complete({
      model: 'x',
      messages: ask('Can I pay with bitcoin or crypto?'),
      passages: [{ title: 'Payments', text: 'You can pay by card.', score: 42 }],
      handoffMessage: 'A colleague will get back to you.',
    });
    expect(weak.handoff).toBe(true);

    const noHandoffMessage = await llm.complete({ model: 'x', messages: ask('bitcoin?') });
    expect(noHandoffMessage).toMatchObject({ text: DEFAULT_HANDOFF_MESSAGE, handoff: true });
  });

  it('uses the coverage the search reports when present', () => {
    const request = { messages: ask('refund window for gift cards'), passages: [
      { title: 'A', text: 'Unrelated words.', score: 3, coverage: 0.75 },
    ] };
    expect(pickPassage(request)?.title).toBe('A');
    expect(pickPassage({ ...request, passages: [{ ...request.passages[0]!, coverage: 0.25 }] })).toBeNull();
  });

  it('computes coverage itself with plural/prefix tolerance, and skips zero scores', () => {
    const passages = [
      { title: 'Zero', text: 'Opening hours and Sunday opening.', score: 0 },
      { title: 'Hours', text: 'We are open Monday to Saturday and closed on Sundays.', score: 2 },
    ];
    // terms opening, hours, sunday: "open" ~ "opening", "hours" from the title, "sundays" ~ "sunday" → 3/3
    expect(pickPassage({ messages: ask('What are your opening hours on Sunday?'), passages })?.title).toBe('Hours');
    // Only stop words in the question → nothing to match → handoff.
    expect(pickPassage({ messages: ask('What is it?'), passages })).toBeNull();
  });

  it('takes the first passage that clears the bar (best first)', () => {
    const passages = [
      { title: 'Weak', text: 'Password', score: 9 },
      { title: 'Good', text: 'Reset your password from Settings.', score: 5 },
    ];
    expect(pickPassage({ messages: ask('reset password settings'), passages })?.title).toBe('Good');
  });

  it('trims long passages on a sentence boundary', async () => {
    const long = Array.from({ length: 50 }, (_, i) => `Refund rule ${i} applies to every order.`).join(' ');
    const response = await createBuiltinLlm({ maxAnswerChars: 300 }).complete({
      model: 'x',
      messages: ask('refund rule'),
      passages: [{ title: 'Refunds', text: long, score: 3 }],
    });
    expect(response.text.length).toBeLessThanOrEqual(300);
    expect(response.text.endsWith('applies to every order.')).toBe(true);
    expect(trimAnswer('one two three four five six', 12)).toBe('one two…');
  });

  it('answers end to end from the knowledge index results', async () => {
    const index = createKnowledgeIndex();
    index.addDocument('c1', {
      id: 'd1',
      title: 'Returns',
      chunks: chunkTexts({ title: 'Returns', content: '## Window\nYou can return any item within 30 days of delivery.' }),
    });
    index.addDocument('c1', { id: 'd2', title: 'Shipping', chunks: ['We ship worldwide with DHL.'] });
    const question = 'Within how many days can I return an item?';
    const passages = index.search('c1', question).map((r) => ({ title: r.title, text: r.text, score: r.score, coverage: r.coverage }));
    const response = await llm.complete({ model: 'x', messages: ask(question), passages, handoffMessage: 'Handing over.' });
    expect(response).toMatchObject({ text: 'You can return any item within 30 days of delivery.' });
    expect(response.handoff).toBeUndefined();

    const unknown = 'Do you sell gift vouchers?';
    const none = index.search('c1', unknown).map((r) => ({ title: r.title, text: r.text, score: r.score, coverage: r.coverage }));
    expect(await llm.complete({ model: 'x', messages: ask(unknown), passages: none, handoffMessage: 'Handing over.' })).toMatchObject({
      text: 'Handing over.',
      handoff: true,
    });
  });

  it('rejects an aborted request and reports a working connection', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(llm.complete({ model: 'x', messages: ask('hi'), signal: controller.signal })).rejects.toSatisfy(
      (e) => e instanceof LlmError && e.kind === 'aborted' && !e.retryable,
    );
    expect(await llm.testConnection()).toMatchObject({ ok: true });
  });
});
