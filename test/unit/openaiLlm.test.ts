import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createOpenAiLlm, isReasoningModel, makeScrubber } from '../../src/infrastructure/llm/openaiLlm.js';
import { LlmError, type LlmErrorKind, type LlmMessage } from '../../src/ports/llm.js';
import { startFakeLlm, type ChatCompletionBody, type FakeLlm } from '../support/fakeLlm.js';

const API_KEY = 'sk-test-SECRET-0123456789abcdef';
/** The fake listens on 127.0.0.1: these tests allow private addresses, as ALLOW_PRIVATE_PLATFORM_URLS does. */
const LOCAL = { allowPrivate: true };
const messages: LlmMessage[] = [
  { role: 'system', content: 'You are the ACME support agent.' },
  { role: 'user', content: 'Where is my order?' },
];

async function failure(promise: Promise<unknown>): Promise<LlmError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(LlmError);
    const llmError = error as LlmError;
    // Whatever went wrong, the key never appears in what gets logged or shown.
    expect(llmError.message).not.toContain(API_KEY);
    expect(JSON.stringify(llmError)).not.toContain(API_KEY);
    expect(String(llmError.stack)).not.toContain(API_KEY);
    expect((llmError as { cause?: unknown }).cause).toBeUndefined();
    return llmError;
  }
  throw new Error('expected the call to fail');
}

function expectKind(error: LlmError, kind: LlmErrorKind, retryable: boolean) {
  expect({ kind: error.kind, retryable: error.retryable }).toEqual({ kind, retryable });
}

describe('openai-compatible LLM adapter (against a real HTTP fake)', () => {
  let fake: FakeLlm;
  beforeAll(async () => {
    fake = await startFakeLlm({ apiKey: API_KEY });
  });
  afterEach(() => fake.reset());
  afterAll(async () => {
    await fake.close();
  });

  const llm = (options: { timeoutMs?: number; maxRetries?: number; apiKey?: string } = {}) =>
    createOpenAiLlm({ baseUrl: fake.url, apiKey: API_KEY, network: LOCAL, ...options });

  it('completes with the reported usage and sends the key, model and parameters', async () => {
    fake.usage = { prompt_tokens: 42, completion_tokens: 7 };
    const response = await llm().complete({ model: 'gpt-4o-mini', messages, temperature: 0.2, maxTokens: 300 });
    expect(response).toEqual({
      text: 'Echo: Where is my order?',
      usage: { inputTokens: 42, outputTokens: 7 },
      model: 'gpt-4o-mini',
    });
    const [request] = fake.completionRequests;
    expect(request?.authorization).toBe(`Bearer ${API_KEY}`);
    expect(request?.body).toMatchObject({ model: 'gpt-4o-mini', messages, temperature: 0.2, max_tokens: 300 });
    expect(request?.body).not.toHaveProperty('max_completion_tokens');
  });

  it('reports the model the server answered with (e.g. a dated snapshot)', async () => {
    fake.reply = () => ({ content: 'ok', model: 'gpt-4o-mini-2024-07-18' });
    const response = await llm().complete({ model: 'gpt-4o-mini', messages });
    expect(response.model).toBe('gpt-4o-mini-2024-07-18');
  });

  it('uses max_completion_tokens and no temperature for reasoning models', async () => {
    await llm().complete({ model: 'gpt-5-mini', messages, temperature: 0.2, maxTokens: 300 });
    const body = fake.completionRequests[0]?.body as ChatCompletionBody;
    expect(body.max_completion_tokens).toBe(300);
    expect(body).not.toHaveProperty('max_tokens');
    expect(body).not.toHaveProperty('temperature');
    expect(['o4-mini', 'o3', 'gpt-5', 'openai/gpt-5-nano'].every(isReasoningModel)).toBe(true);
    expect(['gpt-4o', 'llama3.2', 'gpt-4.1-mini', 'ollama'].some(isReasoningModel)).toBe(false);
  });

  it('puts passages and the handoff instruction in a system message after the agent prompt; flags a handoff answer', async () => {
    fake.reply = () => ' "A colleague will reply shortly." ';
    const response = await llm().complete({
      model: 'gpt-4o-mini',
      messages,
      passages: [{ title: 'Shipping', text: 'Orders ship in 2 days.', score: 3 }],
      handoffMessage: 'A colleague will reply shortly.',
    });
    expect(response.handoff).toBe(true);
    const sent = (fake.completionRequests[0]?.body as ChatCompletionBody).messages ?? [];
    expect(sent.map((m) => m.role)).toEqual(['system', 'system', 'user']);
    expect(sent[1]?.content).toContain('[1] Shipping\nOrders ship in 2 days.');
    expect(sent[1]?.content).toContain('A colleague will reply shortly.');

    fake.reply = 'Your order ships tomorrow.';
    const normal = await llm().complete({ model: 'gpt-4o-mini', messages, handoffMessage: 'A colleague will reply shortly.' });
    expect(normal.handoff).toBeUndefined();
  });

  it('estimates usage (~4 chars/token, rounded up) when the server reports none', async () => {
    fake.omitUsageNext(1);
    fake.reply = 'x'.repeat(10);
    const response = await llm().complete({ model: 'llama3.2', messages });
    const promptChars = messages.reduce((n, m) => n + m.content.length, 0);
    expect(response.usage).toEqual({ inputTokens: Math.ceil(promptChars / 4), outputTokens: 3 });
    expect(response.usageEstimated).toBe(true);
  });

  it.each([500, 503, 429])('retries a %i and then succeeds', async (status) => {
    fake.failNext(2, status);
    const response = await llm({ maxRetries: 2 }).complete({ model: 'gpt-4o-mini', messages });
    expect(response.text).toBe('Echo: Where is my order?');
    expect(fake.completionRequests).toHaveLength(3);
  });

  it('gives up after maxRetries: server_error, retryable, with the status', async () => {
    fake.failNext(5, 500);
    const error = await failure(llm({ maxRetries: 2 }).complete({ model: 'gpt-4o-mini', messages }));
    expectKind(error, 'server_error', true);
    expect(error.status).toBe(500);
    expect(fake.completionRequests).toHaveLength(3);
  });

  it('maps 429 to rate_limited (retryable) but an exhausted quota to not retryable', async () => {
    fake.failNext(1, 429);
    expectKind(await failure(llm({ maxRetries: 0 }).complete({ model: 'gpt-4o-mini', messages })), 'rate_limited', true);
    fake.failNext(1, 429, {
      error: { message: 'You exceeded your current quota', type: 'insufficient_quota', code: 'insufficient_quota' },
    });
    expectKind(await failure(llm({ maxRetries: 0 }).complete({ model: 'gpt-4o-mini', messages })), 'rate_limited', false);
  });

  it('times out → LlmError timeout (retryable); the SDK retries timeouts too', async () => {
    fake.delayMs = 1_000;
    const started = Date.now();
    const error = await failure(llm({ timeoutMs: 150, maxRetries: 0 }).complete({ model: 'gpt-4o-mini', messages }));
    expectKind(error, 'timeout', true);
    expect(Date.now() - started).toBeLessThan(900);

    fake.reset();
    fake.delayMs = 1_000;
    await failure(llm({ timeoutMs: 100, maxRetries: 1 }).complete({ model: 'gpt-4o-mini', messages }));
    expect(fake.completionRequests).toHaveLength(2);
  });

  it('a response without choices[0].message.content → bad_response (not retried)', async () => {
    fake.malformedNext(1);
    const error = await failure(llm().complete({ model: 'gpt-4o-mini', messages }));
    expectKind(error, 'bad_response', false);
    expect(fake.completionRequests).toHaveLength(1);

    fake.reply = () => ({ content: null });
    expectKind(await failure(llm().complete({ model: 'gpt-4o-mini', messages })), 'bad_response', false);
    fake.reply = '   ';
    expectKind(await failure(llm().complete({ model: 'gpt-4o-mini', messages })), 'bad_response', false);
  });

  it('a wrong key → auth, not retried, and the message never contains a key (even when the server echoes it)', async () => {
    const wrongKey = 'sk-wrong-KEY-abcdef0123456789';
    const error = await failure(llm({ apiKey: wrongKey }).complete({ model: 'gpt-4o-mini', messages }));
    expectKind(error, 'auth', false);
    expect(error.status).toBe(401);
    expect(error.message).not.toContain(wrongKey);
    expect(error.message).not.toContain('abcdef0123456789');
    // Only the status and our own words: nothing of what the server said.
    expect(error.message).toMatch(/answered HTTP 401: the API key was rejected/);
    expect(error.message).not.toMatch(/Incorrect API key/i);
    expect(fake.completionRequests).toHaveLength(1);
    expect(fake.completionRequests[0]?.authorization).toBe(`Bearer ${wrongKey}`);
  });

  it('a rejected request (unknown model: 404) → invalid_request, not retried', async () => {
    fake.failNext(1, 404, { error: { message: 'The model `nope` does not exist', type: 'invalid_request_error', code: 'model_not_found' } });
    const error = await failure(llm().complete({ model: 'nope', messages }));
    expectKind(error, 'invalid_request', false);
    expect(error.message).toMatch(/answered HTTP 404: unknown model/);
    expect(error.message).not.toContain('does not exist'); // the server's words are not repeated
  });

  it('a server that is not there → unreachable (retryable)', async () => {
    const closedPort = await new Promise<number>((resolve) => {
      const server = createServer();
      server.listen(0, '127.0.0.1', () => {
        const { port } = server.address() as AddressInfo;
        server.close(() => resolve(port));
      });
    });
    const error = await failure(
      createOpenAiLlm({ baseUrl: `http://127.0.0.1:${closedPort}/v1`, apiKey: API_KEY, maxRetries: 0, network: LOCAL }).complete({
        model: 'gpt-4o-mini',
        messages,
      }),
    );
    expectKind(error, 'unreachable', true);
    expect(error.message).toContain(`127.0.0.1:${closedPort}/v1`);
  });

  it('cancellation through the signal → aborted, not retryable', async () => {
    fake.delayMs = 2_000;
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const error = await failure(llm().complete({ model: 'gpt-4o-mini', messages, signal: controller.signal }));
    expectKind(error, 'aborted', false);
  });

  it('never takes credentials or organisation from the environment', async () => {
    const saved = { key: process.env.OPENAI_API_KEY, org: process.env.OPENAI_ORG_ID };
    process.env.OPENAI_API_KEY = 'sk-operator-env-key-should-never-leak';
    process.env.OPENAI_ORG_ID = 'org-operator';
    try {
      fake.apiKey = undefined; // an Ollama-like server needing no key
      const response = await createOpenAiLlm({ baseUrl: fake.url, network: LOCAL }).complete({ model: 'llama3.2', messages });
      expect(response.text).toBe('Echo: Where is my order?');
      const request = fake.completionRequests[0];
      expect(request?.authorization).toBe('Bearer no-key');
      expect(JSON.stringify(request?.headers)).not.toContain('sk-operator-env-key');
      expect(request?.headers['openai-organization']).toBeUndefined();
    } finally {
      if (saved.key === undefined) delete process.env.OPENAI_API_KEY;
      else process.env.OPENAI_API_KEY = saved.key;
      if (saved.org === undefined) delete process.env.OPENAI_ORG_ID;
      else process.env.OPENAI_ORG_ID = saved.org;
    }
  });

  it('rejects a base URL that is not http(s)', () => {
    expect(() => createOpenAiLlm({ baseUrl: 'not a url' })).toThrow(LlmError);
    expect(() => createOpenAiLlm({ baseUrl: 'file:///etc/passwd' })).toThrow(/http/);
    expect(() => createOpenAiLlm({ baseUrl: 'http://user:pw@127.0.0.1/v1' })).toThrow(/credentials/);
  });

  describe('testConnection', () => {
    it('lists the models, or runs a tiny completion when a model is given', async () => {
      const listed = await llm().testConnection();
      expect(listed).toMatchObject({ ok: true, models: ['gpt-4o-mini', 'llama3.2'] });
      expect(fake.requests.at(-1)).toMatchObject({ method: 'GET', path: '/v1/models' });

      const completed = await llm().testConnection({ model: 'gpt-4o-mini' });
      expect(completed).toMatchObject({ ok: true, models: ['gpt-4o-mini'] });
      expect(fake.completionRequests).toHaveLength(1);
    });

    it('reports a failure instead of throwing, without retries and without the key', async () => {
      const result = await llm({ apiKey: 'sk-bad-key-0000000000' }).testConnection();
      expect(result.ok).toBe(false);
      if (!result.ok) {
        expect(result.error.kind).toBe('auth');
        expect(result.error.message).not.toContain('sk-bad-key-0000000000');
      }
      fake.failNext(3, 500);
      const failed = await llm().testConnection({ model: 'gpt-4o-mini' });
      expect(failed).toMatchObject({ ok: false, error: { kind: 'server_error' } });
      expect(fake.completionRequests).toHaveLength(1);
    });
  });
});

describe('makeScrubber', () => {
  it('removes the key, bearer tokens and sk- keys', () => {
    const scrub = makeScrubber('my-custom-key-123');
    expect(scrub('bad key my-custom-key-123 here')).toBe('bad key [redacted] here');
    expect(scrub('Authorization: Bearer abc.def')).toBe('Authorization: Bearer [redacted]');
    expect(scrub('Incorrect API key provided: sk-proj-abc***wxyz.')).toBe('Incorrect API key provided: [redacted]');
    expect(scrub('fetch http://user:pw@host/v1 failed')).toBe('fetch http://host/v1 failed');
  });
});
