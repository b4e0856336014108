import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createOpenAiLlm } from '../../src/infrastructure/llm/openaiLlm.js';
import { LlmError, MAX_HANDOFF_REASON, type LlmMessage, type LlmRequest } from '../../src/ports/llm.js';
import { startFakeLlm, type ChatCompletionBody, type FakeLlm } from '../support/fakeLlm.js';

const LOCAL = { allowPrivate: true };
const HANDOFF = 'A colleague will reply soon.';
const messages: LlmMessage[] = [
  { role: 'system', content: 'You are the ACME support agent.' },
  { role: 'user', content: 'Where is my order?' },
];
const ANSWER = 'Your order left our warehouse yesterday and arrives on Friday.';

let fake: FakeLlm;
beforeAll(async () => {
  fake = await startFakeLlm({ reply: ANSWER, chunkChars: 5 });
});
afterAll(async () => fake?.close());
beforeEach(() => fake.reset());

const llm = (extra: { maxRetries?: number; timeoutMs?: number } = {}) => createOpenAiLlm({ baseUrl: fake.url, maxRetries: extra.maxRetries ?? 0, timeoutMs: extra.timeoutMs ?? 5000, network: LOCAL });
const lastBody = () => fake.completionRequests.at(-1)!.body as ChatCompletionBody;

async function streamed(request: Partial<LlmRequest> = {}, provider = llm()) {
  const deltas: string[] = [];
  const response = await provider.complete({ model: 'gpt-4o-mini', messages, handoffMessage: HANDOFF, onDelta: (t) => deltas.push(t), ...request });
  return { response, deltas };
}

async function failure(promise: Promise<unknown>): Promise<LlmError> {
  const error = await promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(LlmError);
  return error as LlmError;
}

describe('streaming (onDelta given)', () => {
  it('asks for a stream with usage, hands each fragment to onDelta as it arrives, and answers with the whole text and the reported usage', async () => {
    fake.usage = { prompt_tokens: 123, completion_tokens: 17 };
    const { response, deltas } = await streamed();
    expect(lastBody()).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(deltas.length).toBe(Math.ceil(ANSWER.length / 5));
    expect(deltas.join('')).toBe(ANSWER);
    expect(response).toMatchObject({ text: ANSWER, usage: { inputTokens: 123, outputTokens: 17 }, model: 'gpt-4o-mini' });
    expect(response.usageEstimated).toBeUndefined();
    expect(response.handoff).toBeUndefined();
  });

  it('fragments arrive while the answer is still being generated (not after the whole body)', async () => {
    fake.chunkDelayMs = 40;
    let firstAt = 0;
    const started = Date.now();
    const response = await llm().complete({ model: 'gpt-4o-mini', messages, onDelta: () => (firstAt ||= Date.now()) });
    const doneAt = Date.now();
    expect(response.text).toBe(ANSWER);
    // 13 chunks 40 ms apart: the first is seen long before the last.
    expect(firstAt).toBeGreaterThan(0);
    expect(firstAt - started).toBeLessThan(doneAt - started - 200);
  });

  it('a stream that stalls (no chunk within the timeout) is a retryable timeout', async () => {
    fake.chunkDelayMs = 400;
    const error = await failure(llm({ timeoutMs: 150 }).complete({ model: 'gpt-4o-mini', messages, onDelta: () => {} }));
    expect({ kind: error.kind, retryable: error.retryable }).toEqual({ kind: 'timeout', retryable: true });
  });

  it('estimates usage (flagged) when the stream reports none', async () => {
    fake.omitUsageNext(1);
    const { response } = await streamed();
    expect(response.text).toBe(ANSWER);
    expect(response.usageEstimated).toBe(true);
    expect(response.usage.outputTokens).toBe(Math.ceil(ANSWER.length / 4));
    expect(response.usage.inputTokens).toBeGreaterThan(0);
  });

  it('does not stream without onDelta (one JSON completion, as before)', async () => {
    const response = await llm().complete({ model: 'gpt-4o-mini', messages, handoffMessage: HANDOFF });
    expect(lastBody().stream).toBeUndefined();
    expect(response.text).toBe(ANSWER);
  });

  it('a stream that breaks off mid-answer is a retryable LlmError (the caller discards the fragments seen)', async () => {
    fake.breakStreamNext(1, 3);
    const deltas: string[] = [];
    const error = await failure(llm().complete({ model: 'gpt-4o-mini', messages, onDelta: (t) => deltas.push(t) }));
    expect(deltas.length).toBeLessThanOrEqual(3);
    expect(error.retryable).toBe(true);
    expect(error.message).not.toContain(ANSWER.slice(0, 10));
  });

  it('abort stops the stream: aborted, not retryable, no more fragments after it', async () => {
    fake.chunkDelayMs = 30;
    const controller = new AbortController();
    const deltas: string[] = [];
    const call = llm().complete({
      model: 'gpt-4o-mini',
      messages,
      signal: controller.signal,
      onDelta: (t) => {
        deltas.push(t);
        if (deltas.length === 2) controller.abort();
      },
    });
    const error = await failure(call);
    expect({ kind: error.kind, retryable: error.retryable }).toEqual({ kind: 'aborted', retryable: false });
    const seen = deltas.length;
    await new Promise((r) => setTimeout(r, 150));
    expect(deltas.length).toBe(seen);
    expect(seen).toBeLessThan(Math.ceil(ANSWER.length / 5));
  });
});

describe('handoff by the model (handoff_to_human tool)', () => {
  it('offers the tool (required reason, tool_choice auto) with the handoff message; a call answers with the handoff message, handoff and the reason', async () => {
    fake.handoffNext('The customer wants a refund, which needs a person.');
    const response = await llm().complete({ model: 'gpt-4o-mini', messages, handoffMessage: HANDOFF });
    const body = lastBody() as ChatCompletionBody & { tools: any[]; tool_choice: unknown };
    expect(body.tool_choice).toBe('auto');
    expect(body.tools).toHaveLength(1);
    expect(body.tools[0].function).toMatchObject({ name: 'handoff_to_human', parameters: { required: ['reason'] } });
    expect(response).toMatchObject({ text: HANDOFF, handoff: true, handoffReason: 'The customer wants a refund, which needs a person.' });
  });

  it('offers no tool without a handoff message', async () => {
    await llm().complete({ model: 'gpt-4o-mini', messages });
    expect(lastBody().tools).toBeUndefined();
  });

  it('works while streaming: the tool-call fragments are accumulated', async () => {
    fake.handoffNext('Asked about a legal dispute');
    const { response } = await streamed();
    expect(lastBody().stream).toBe(true);
    expect(response).toMatchObject({ text: HANDOFF, handoff: true, handoffReason: 'Asked about a legal dispute' });
  });

  it('keeps the reason plain, one line and bounded; hands off without a reason when the arguments are malformed', async () => {
    const huge = `<b>bold</b>\u0000\nline two ${'x'.repeat(5000)}`;
    fake.reply = () => ({ content: null, toolCalls: [{ name: 'handoff_to_human', arguments: JSON.stringify({ reason: huge }) }] });
    const long = await streamed();
    expect(long.response.handoff).toBe(true);
    expect(long.response.handoffReason!.length).toBe(MAX_HANDOFF_REASON);
    expect(long.response.handoffReason).toMatch(/^<b>bold<\/b> line two x+$/);

    fake.reply = () => ({ content: null, toolCalls: [{ name: 'handoff_to_human', arguments: '{"reason": "unterminated' }] });
    const malformed = await llm().complete({ model: 'gpt-4o-mini', messages, handoffMessage: HANDOFF });
    expect(malformed).toMatchObject({ text: HANDOFF, handoff: true });
    expect(malformed.handoffReason).toBeUndefined();
  });

  it('a server that rejects tools (400 mentioning tools) still answers: asked again without tools, and never offered them again by this client', async () => {
    fake.rejectTools = true;
    const provider = llm();
    const first = await streamed({}, provider);
    expect(first.response.text).toBe(ANSWER);
    expect(fake.completionRequests.map((r) => (r.body as ChatCompletionBody).tools !== undefined)).toEqual([true, false]);
    const second = await provider.complete({ model: 'gpt-4o-mini', messages, handoffMessage: HANDOFF });
    expect(second.text).toBe(ANSWER);
    expect(fake.completionRequests).toHaveLength(3);
    expect(lastBody().tools).toBeUndefined();
    // The plain-text handoff still works without tools.
    expect(JSON.stringify(lastBody().messages)).toContain(HANDOFF);
  });

  it('another 400 (not about tools) is not retried', async () => {
    fake.failNext(1, 400, { error: { message: 'model not found', type: 'invalid_request_error', param: 'model', code: null } });
    const error = await failure(llm().complete({ model: 'nope', messages, handoffMessage: HANDOFF }));
    expect(error.kind).toBe('invalid_request');
    expect(fake.completionRequests).toHaveLength(1);
  });
});
