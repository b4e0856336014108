import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A real HTTP server speaking the slice of OpenAI's API the service uses:
 * `POST /v1/chat/completions` (non-streaming) and `GET /v1/models`. Listens on 127.0.0.1:<free port>.
 *
 * - Answers "Echo: <last user message>" unless `reply` says otherwise; usage is `usage` or a rough count.
 * - Records every request (method, path, headers incl. Authorization, parsed body).
 * - `apiKey` set → other bearer tokens get OpenAI's 401, whose message echoes the token received
 *   (worst case for leak tests: the adapter must scrub it).
 * - Faults: `failNext(n, status)` (error body; `retry-after-ms` header so SDK retries are quick),
 *   `malformedNext(n)` (200 without choices), `delayMs` (before responding, for timeouts),
 *   `omitUsageNext(n)` (200 without usage).
 */

export interface FakeLlmRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  authorization: string | undefined;
  body: unknown;
}

export interface ChatCompletionBody {
  model?: string;
  messages?: { role: string; content: unknown }[];
  temperature?: number;
  max_tokens?: number;
  max_completion_tokens?: number;
  [key: string]: unknown;
}

export type FakeReply =
  | string
  | ((body: ChatCompletionBody) => string | { content: string | null; model?: string; usage?: FakeUsage });

export interface FakeUsage {
  prompt_tokens: number;
  completion_tokens: number;
}

export interface FakeLlmOptions {
  apiKey?: string;
  reply?: FakeReply;
  usage?: FakeUsage;
  models?: string[];
  delayMs?: number;
  /** Delay the SDK waits before retrying a failed request (`retry-after-ms`). Default 5. */
  retryAfterMs?: number;
}

export interface FakeLlm {
  /** Base URL including /v1, e.g. http://127.0.0.1:54321/v1 */
  readonly url: string;
  readonly requests: FakeLlmRequest[];
  /** Chat completion requests only (the ones that reached the handler, failed or not). */
  readonly completionRequests: FakeLlmRequest[];
  reply: FakeReply | undefined;
  usage: FakeUsage | undefined;
  apiKey: string | undefined;
  delayMs: number;
  failNext(count: number, status?: number, body?: unknown): void;
  malformedNext(count: number): void;
  omitUsageNext(count: number): void;
  reset(): void;
  close(): Promise<void>;
}

export async function startFakeLlm(options: FakeLlmOptions = {}): Promise<FakeLlm> {
  const requests: FakeLlmRequest[] = [];
  const failures: { status: number; body: unknown }[] = [];
  let malformed = 0;
  let omitUsage = 0;
  const retryAfterMs = options.retryAfterMs ?? 5;
  const models = options.models ?? ['gpt-4o-mini', 'llama3.2'];
  const timers = new Set<NodeJS.Timeout>();

  const state = {
    reply: options.reply,
    usage: options.usage,
    apiKey: options.apiKey,
    delayMs: options.delayMs ?? 0,
  };

  const send = (res: ServerResponse, status: number, payload: unknown, headers: Record<string, string> = {}) => {
    if (res.destroyed || res.writableEnded) return;
    const body = JSON.stringify(payload);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers });
    res.end(body);
  };

  const errorBody = (message: string, type: string, code: string | null) => ({
    error: { message, type, param: null, code },
  });

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    let body: unknown = undefined;
    if (raw.length > 0) {
      try {
        body = JSON.parse(raw);
      } catch {
        body = raw;
      }
    }
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const record: FakeLlmRequest = {
      method: req.method ?? 'GET',
      path,
      headers: req.headers,
      authorization: req.headers.authorization,
      body,
    };
    requests.push(record);

    if (state.delayMs > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          timers.delete(timer);
          resolve();
        }, state.delayMs);
        timers.add(timer);
        res.once('close', () => {
          clearTimeout(timer);
          timers.delete(timer);
          resolve();
        });
      });
      if (res.destroyed) return;
    }

    const isCompletion = req.method === 'POST' && path === '/v1/chat/completions';
    const isModels = req.method === 'GET' && path === '/v1/models';
    if (!isCompletion && !isModels) {
      send(res, 404, errorBody(`Unknown route ${req.method} ${path}`, 'invalid_request_error', 'not_found'));
      return;
    }

    if (state.apiKey !== undefined && req.headers.authorization !== `Bearer ${state.apiKey}`) {
      const received = (req.headers.authorization ?? '').replace(/^Bearer\s+/i, '');
      send(
        res,
        401,
        errorBody(`Incorrect API key provided: ${received}.`, 'invalid_request_error', 'invalid_api_key'),
      );
      return;
    }

    const failure = failures.shift();
    if (failure !== undefined) {
      send(res, failure.status, failure.body, { 'retry-after-ms': String(retryAfterMs) });
      return;
    }

    if (isModels) {
      send(res, 200, {
        object: 'list',
        data: models.map((id) => ({ id, object: 'model', created: 1_700_000_000, owned_by: 'fake' })),
      });
      return;
    }

    const completion = (body ?? {}) as ChatCompletionBody;
    const model = typeof completion.model === 'string' ? completion.model : 'unknown';
    if (malformed > 0) {
      malformed--;
      send(res, 200, { id: 'chatcmpl-malformed', object: 'chat.completion', created: now(), model, choices: [] });
      return;
    }

    let content: string | null;
    let replyModel = model;
    let replyUsage = state.usage;
    const reply = state.reply;
    if (reply === undefined) {
      content = `Echo: ${lastUserMessage(completion)}`;
    } else if (typeof reply === 'string') {
      content = reply;
    } else {
      const result = reply(completion);
      if (typeof result === 'string') {
        content = result;
      } else {
        content = result.content;
        replyModel = result.model ?? model;
        replyUsage = result.usage ?? replyUsage;
      }
    }
    const usage = replyUsage ?? {
      prompt_tokens: Math.ceil(JSON.stringify(completion.messages ?? []).length / 4),
      completion_tokens: Math.ceil((content ?? '').length / 4),
    };
    const includeUsage = omitUsage === 0;
    if (omitUsage > 0) omitUsage--;
    send(res, 200, {
      id: `chatcmpl-${requests.length}`,
      object: 'chat.completion',
      created: now(),
      model: replyModel,
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop', logprobs: null }],
      ...(includeUsage
        ? { usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } }
        : {}),
    });
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      send(res, 500, errorBody(`fake LLM crashed: ${String(error)}`, 'server_error', null));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    get completionRequests() {
      return requests.filter((r) => r.method === 'POST' && r.path === '/v1/chat/completions');
    },
    get reply() {
      return state.reply;
    },
    set reply(value) {
      state.reply = value;
    },
    get usage() {
      return state.usage;
    },
    set usage(value) {
      state.usage = value;
    },
    get apiKey() {
      return state.apiKey;
    },
    set apiKey(value) {
      state.apiKey = value;
    },
    get delayMs() {
      return state.delayMs;
    },
    set delayMs(value) {
      state.delayMs = value;
    },
    failNext(count, status = 500, body) {
      const payload =
        body ??
        (status === 429
          ? errorBody('Rate limit reached for requests', 'requests', 'rate_limit_exceeded')
          : errorBody('The server had an error while processing your request.', 'server_error', null));
      for (let i = 0; i < count; i++) failures.push({ status, body: payload });
    },
    malformedNext(count) {
      malformed += count;
    },
    omitUsageNext(count) {
      omitUsage += count;
    },
    reset() {
      requests.length = 0;
      failures.length = 0;
      malformed = 0;
      omitUsage = 0;
      state.delayMs = options.delayMs ?? 0;
      state.reply = options.reply;
      state.usage = options.usage;
      state.apiKey = options.apiKey;
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function now(): number {
  return Math.floor(Date.now() / 1000);
}

function lastUserMessage(body: ChatCompletionBody): string {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message?.role === 'user') return typeof message.content === 'string' ? message.content : JSON.stringify(message.content);
  }
  return '';
}
