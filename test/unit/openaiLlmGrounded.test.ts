import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createOpenAiLlm } from '../../src/infrastructure/llm/openaiLlm.js';
import { parseGroundedReply } from '../../src/infrastructure/llm/groundedReply.js';
import type { LlmMessage, LlmPassage, LlmRequest } from '../../src/ports/llm.js';
import { startFakeLlm, type ChatCompletionBody, type FakeLlm } from '../support/fakeLlm.js';

/**
 * Grounded answers from an OpenAI-compatible model (issue 26, item 4): given passages, the model answers from
 * them and cites the ones it used; an answer citing none is handed off for want of a confident answer, unless
 * the agent allows general answers. Against the scripted fake model, over HTTP.
 */

const LOCAL = { allowPrivate: true };
const HANDOFF = 'A colleague will reply shortly.';
const messages: LlmMessage[] = [
  { role: 'system', content: 'You are the ACME support agent.' },
  { role: 'user', content: 'Do you ship to Norway?' },
];
const passages: LlmPassage[] = [
  { title: 'Shipping', text: 'We ship to Norway, Sweden and Denmark within 3 business days.', score: 4, documentId: 'doc-ship', chunkIndex: 0 },
  { title: 'Returns', text: 'Returns are free within 30 days.', score: 1, documentId: 'doc-returns', chunkIndex: 0 },
];
const reply = (r: { citations: unknown[]; answer: string; handoff?: boolean; handoffReason?: string | null }) =>
  JSON.stringify({ handoff: false, handoffReason: null, ...r });

describe('grounded answers (OpenAI-compatible provider, scripted fake model)', () => {
  let fake: FakeLlm;
  beforeAll(async () => {
    fake = await startFakeLlm();
  });
  afterEach(() => fake.reset());
  afterAll(() => fake.close());

  const llm = () => createOpenAiLlm({ baseUrl: fake.url, network: LOCAL, maxRetries: 0 });
  const ask = (extra: Partial<LlmRequest> = {}) => llm().complete({ model: 'gpt-4o-mini', messages, passages, handoffMessage: HANDOFF, ...extra });
  const lastBody = () => fake.completionRequests.at(-1)!.body as ChatCompletionBody & { response_format?: { type: string; json_schema: { name: string; strict: boolean; schema: { required: string[] } } } };

  it('given passages, when asked, then the model is asked for a JSON-schema reply citing numbered passages', async () => {
    fake.reply = reply({ citations: [1], answer: 'Yes, within 3 business days.' });
    await ask();
    const body = lastBody();
    expect(body.response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'grounded_reply', strict: true } });
    expect(body.response_format!.json_schema.schema.required.sort()).toEqual(['answer', 'citations', 'handoff', 'handoffReason']);
    const context = body.messages!.find((m) => m.role === 'system' && String(m.content).startsWith('Knowledge base passages'));
    expect(context?.content).toContain('[1] Shipping\nWe ship to Norway');
    expect(context?.content).toContain('[2] Returns');
    expect(context?.content).toContain('an answer citing none is not sent');
    // Not streamed: whether it is sent is decided on the whole reply.
    expect(body.stream).toBeUndefined();
  });

  it('given a reply citing a passage, then it is the answer and only the cited passage is its source', async () => {
    fake.reply = reply({ citations: [1], answer: 'Yes, we ship to Norway within 3 business days.' });
    const response = await ask();
    expect(response).toMatchObject({ text: 'Yes, we ship to Norway within 3 business days.', usedPassages: [0] });
    expect(response.handoff).toBeUndefined();
  });

  it('given a reply citing no passage, then it is handed off with the reason "no confident answer"', async () => {
    fake.reply = reply({ citations: [], answer: 'Yes, we ship everywhere in Europe.' });
    const response = await ask();
    expect(response).toMatchObject({ text: HANDOFF, handoff: true, handoffReason: 'no confident answer', handoffCause: 'no_confident_answer', usedPassages: [] });
  });

  it('given a reply citing no passage and an agent allowing general answers, then it is answered, with no sources', async () => {
    fake.reply = reply({ citations: [], answer: 'Hello! How can I help?' });
    const response = await ask({ generalAnswers: true });
    expect(response).toMatchObject({ text: 'Hello! How can I help?', usedPassages: [] });
    expect(response.handoff).toBeUndefined();
    const context = lastBody().messages!.find((m) => String(m.content).startsWith('Knowledge base passages'));
    expect(context?.content).toContain('may cite none');
  });

  it("given an explicit handoff, then the agent's handoff message is sent with the model's reason", async () => {
    fake.reply = reply({ citations: [], answer: '', handoff: true, handoffReason: 'The passages do not mention Finland.' });
    const response = await ask();
    expect(response).toMatchObject({ text: HANDOFF, handoff: true, handoffReason: 'The passages do not mention Finland.', handoffCause: 'no_confident_answer' });
  });

  it('given a citation of a passage that was not offered, then that citation is ignored', async () => {
    fake.reply = reply({ citations: [7, 2], answer: 'Returns are free within 30 days.' });
    expect(await ask()).toMatchObject({ text: 'Returns are free within 30 days.', usedPassages: [1] });

    fake.reply = reply({ citations: [0, 3, -1], answer: 'We ship to Finland too.' });
    expect(await ask()).toMatchObject({ text: HANDOFF, handoff: true, handoffCause: 'no_confident_answer' });
  });

  it('given a reply that is not the JSON asked for, then it is handed off; with general answers plain text is sent as written', async () => {
    fake.groundedAsIs = true;
    fake.reply = 'Sure, we ship to Norway.';
    expect(await ask()).toMatchObject({ text: HANDOFF, handoff: true, handoffReason: 'no confident answer', handoffCause: 'no_confident_answer' });
    expect(await ask({ generalAnswers: true })).toMatchObject({ text: 'Sure, we ship to Norway.', usedPassages: [] });

    fake.reply = '{"answer": 42}';
    expect(await ask({ generalAnswers: true })).toMatchObject({ text: HANDOFF, handoff: true });
  });

  it('given JSON wrapped in a code fence with ids as strings, then it is read tolerantly', async () => {
    fake.groundedAsIs = true;
    fake.reply = 'Here you go:\n```json\n{"citations": ["1"], "answer": "Yes, within 3 business days."}\n```';
    expect(await ask()).toMatchObject({ text: 'Yes, within 3 business days.', usedPassages: [0] });
    expect(parseGroundedReply('{"citations": ["[2]"], "answer": "x"}')).toEqual({ citations: [2], answer: 'x', handoff: false, handoffReason: null });
    expect(parseGroundedReply('no json here')).toBeNull();
  });

  it('given a server that rejects response_format, then it is asked again without it, the prompt still asking for the JSON', async () => {
    fake.rejectResponseFormat = true;
    fake.reply = reply({ citations: [1], answer: 'Yes.' });
    const client = llm();
    expect(await client.complete({ model: 'gpt-4o-mini', messages, passages, handoffMessage: HANDOFF })).toMatchObject({ text: 'Yes.', usedPassages: [0] });
    expect(fake.completionRequests.map((r) => (r.body as { response_format?: unknown }).response_format !== undefined)).toEqual([true, false]);
    await client.complete({ model: 'gpt-4o-mini', messages, passages, handoffMessage: HANDOFF });
    expect(fake.completionRequests).toHaveLength(3);
    expect((lastBody() as { response_format?: unknown }).response_format).toBeUndefined();
  });

  it('given the model calls its handoff tool, then that stays the model\'s own handoff (no cause)', async () => {
    fake.handoffNext('The customer wants a refund.');
    const response = await ask();
    expect(response).toMatchObject({ text: HANDOFF, handoff: true, handoffReason: 'The customer wants a refund.' });
    expect(response.handoffCause).toBeUndefined();
  });

  it('given a web-chat caller that streams, then a grounded answer is not streamed: it comes whole, once decided', async () => {
    fake.reply = reply({ citations: [1], answer: 'Yes, within 3 business days.' });
    const fragments: string[] = [];
    const response = await ask({ onDelta: (text) => fragments.push(text) });
    expect(response).toMatchObject({ text: 'Yes, within 3 business days.', usedPassages: [0] });
    expect(fragments).toEqual([]);
    expect(lastBody().stream).toBeUndefined();
  });

  it('given no passages, then the model answers as before, without a response format', async () => {
    fake.reply = 'Hello! How can I help?';
    const response = await ask({ passages: [] });
    expect(response).toMatchObject({ text: 'Hello! How can I help?' });
    expect(response.handoff).toBeUndefined();
    expect(lastBody().response_format).toBeUndefined();
  });
});
