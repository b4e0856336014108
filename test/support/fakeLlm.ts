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
 * - Streaming: a request with `stream: true` is answered with SSE chunks (the content in pieces of
 *   `chunkChars`, `chunkDelayMs` apart), usage in a last chunk when `stream_options.include_usage` asks for
 *   it (and `omitUsageNext` does not say otherwise). `breakStreamNext(n, afterChunks)` cuts the connection
 *   after that many content chunks.
 * - Tool calls: a reply function may answer `{ content, toolCalls: [{ name, arguments }] }` (streamed as
 *   argument fragments when streaming); `handoffNext(reason)` makes the next answers call `handoff_to_human`.
 * - `rejectTools`: a request carrying `tools` gets a 400 saying tools are not supported; `rejectResponseFormat`:
 *   likewise for `response_format`.
 * - Grounded requests (the prompt numbers knowledge-base passages and asks for a JSON reply citing them): a
 *   plain-text answer is sent as a model following the format would, `{"citations": [every passage offered],
 *   "answer": <the text>, "handoff": false, "handoffReason": null}`, so tests written for plain answers keep
 *   their meaning. An answer that is already JSON (starts with "{") is sent as it is; `groundedAsIs` sends
 *   plain text as it is too (a model ignoring the format).
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
  | ((body: ChatCompletionBody) => string | { content: string | null; model?: string; usage?: FakeUsage; toolCalls?: FakeToolCall[] });

export interface FakeToolCall {
  name: string;
  /** The JSON arguments as the model would send them (any text: malformed on purpose is allowed). */
  arguments: string;
}

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
  /** Streaming: characters per content chunk (default 4) and the wait between chunks (default 0). */
  chunkChars?: number;
  chunkDelayMs?: number;
  /** Requests carrying `tools` are refused with a 400 (servers without tool calling). */
  rejectTools?: boolean;
  /** Requests carrying `response_format` are refused with a 400 (servers without structured outputs). */
  rejectResponseFormat?: boolean;
  /** Grounded requests get plain-text answers as they are, not wrapped in the grounded JSON reply. */
  groundedAsIs?: boolean;
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
  chunkChars: number;
  chunkDelayMs: number;
  rejectTools: boolean;
  rejectResponseFormat: boolean;
  groundedAsIs: boolean;
  failNext(count: number, status?: number, body?: unknown): void;
  /** The next `count` streamed answers break off (connection destroyed) after `afterChunks` content chunks. */
  breakStreamNext(count: number, afterChunks?: number): void;
  /** The next `count` answers call `handoff_to_human` with this reason instead of answering. */
  handoffNext(reason: string, count?: number): void;
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
  const breaks: number[] = [];
  const handoffs: string[] = [];
  const retryAfterMs = options.retryAfterMs ?? 5;
  const models = options.models ?? ['gpt-4o-mini', 'llama3.2'];
  const timers = new Set<NodeJS.Timeout>();

  const state = {
    reply: options.reply,
    usage: options.usage,
    apiKey: options.apiKey,
    delayMs: options.delayMs ?? 0,
    chunkChars: options.chunkChars ?? 4,
    chunkDelayMs: options.chunkDelayMs ?? 0,
    rejectTools: options.rejectTools ?? false,
    rejectResponseFormat: options.rejectResponseFormat ?? false,
    groundedAsIs: options.groundedAsIs ?? false,
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
    if (state.rejectTools && completion.tools !== undefined) {
      send(res, 400, errorBody("Invalid parameter: 'tools' is not supported by this model.", 'invalid_request_error', null));
      return;
    }
    if (state.rejectResponseFormat && completion.response_format !== undefined) {
      send(res, 400, errorBody("Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.", 'invalid_request_error', null));
      return;
    }
    const model = typeof completion.model === 'string' ? completion.model : 'unknown';
    if (malformed > 0) {
      malformed--;
      send(res, 200, { id: 'chatcmpl-malformed', object: 'chat.completion', created: now(), model, choices: [] });
      return;
    }

    let content: string | null;
    let replyModel = model;
    let replyUsage = state.usage;
    let toolCalls: FakeToolCall[] | undefined;
    const reply = state.reply;
    const handoffReason = handoffs.shift();
    if (handoffReason !== undefined) {
      content = null;
      toolCalls = [{ name: 'handoff_to_human', arguments: JSON.stringify({ reason: handoffReason }) }];
    } else if (reply === undefined) {
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
        toolCalls = result.toolCalls;
      }
    }
    const offered = groundedPassages(completion);
    if (offered > 0 && !state.groundedAsIs && content !== null && !content.trim().startsWith('{')) {
      content = JSON.stringify({ citations: Array.from({ length: offered }, (_, i) => i + 1), answer: content, handoff: false, handoffReason: null });
    }
    const usage = replyUsage ?? {
      prompt_tokens: Math.ceil(JSON.stringify(completion.messages ?? []).length / 4),
      completion_tokens: Math.ceil((content ?? '').length / 4),
    };
    const includeUsage = omitUsage === 0;
    if (omitUsage > 0) omitUsage--;
    const tool_calls = toolCalls?.map((t, i) => ({ id: `call_${i}`, type: 'function', function: { name: t.name, arguments: t.arguments } }));
    if (completion.stream === true) {
      const wantsUsage = (completion.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
      await streamAnswer(res, {
        id: `chatcmpl-${requests.length}`,
        model: replyModel,
        content,
        toolCalls: toolCalls ?? [],
        usage: includeUsage && wantsUsage ? usage : undefined,
        breakAfter: breaks.shift(),
      });
      return;
    }
    send(res, 200, {
      id: `chatcmpl-${requests.length}`,
      object: 'chat.completion',
      created: now(),
      model: replyModel,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content, ...(tool_calls ? { tool_calls } : {}) },
          finish_reason: tool_calls ? 'tool_calls' : 'stop',
          logprobs: null,
        },
      ],
      ...(includeUsage
        ? { usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } }
        : {}),
    });
  };

  const pause = (res: ServerResponse, ms: number) =>
    new Promise<void>((resolve) => {
      if (ms <= 0) return resolve();
      const closed = () => {
        clearTimeout(timer);
        timers.delete(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        timers.delete(timer);
        res.off('close', closed);
        resolve();
      }, ms);
      timers.add(timer);
      res.once('close', closed);
    });

  /** The answer as OpenAI streams it: role, content pieces, tool-call fragments, finish, then usage (if asked), [DONE]. */
  const streamAnswer = async (
    res: ServerResponse,
    a: { id: string; model: string; content: string | null; toolCalls: FakeToolCall[]; usage: FakeUsage | undefined; breakAfter: number | undefined },
  ) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const base = { id: a.id, object: 'chat.completion.chunk', created: now(), model: a.model };
    const write = (choices: unknown[], extra: Record<string, unknown> = {}) => {
      if (!res.destroyed) res.write(`data: ${JSON.stringify({ ...base, choices, ...extra })}\n\n`);
    };
    const delta = (d: Record<string, unknown>, finish: string | null = null) => write([{ index: 0, delta: d, finish_reason: finish, logprobs: null }]);
    delta({ role: 'assistant', content: '' });
    const size = Math.max(1, state.chunkChars);
    const text = a.content ?? '';
    let sent = 0;
    for (let at = 0; at < text.length; at += size) {
      if (a.breakAfter !== undefined && sent >= a.breakAfter) {
        res.destroy();
        return;
      }
      await pause(res, state.chunkDelayMs);
      if (res.destroyed) return;
      delta({ content: text.slice(at, at + size) });
      sent++;
    }
    if (a.breakAfter !== undefined) {
      res.destroy();
      return;
    }
    for (const [index, call] of a.toolCalls.entries()) {
      delta({ tool_calls: [{ index, id: `call_${index}`, type: 'function', function: { name: call.name, arguments: '' } }] });
      for (let at = 0; at < call.arguments.length; at += size) {
        await pause(res, state.chunkDelayMs);
        if (res.destroyed) return;
        delta({ tool_calls: [{ index, function: { arguments: call.arguments.slice(at, at + size) } }] });
      }
    }
    delta({}, a.toolCalls.length > 0 ? 'tool_calls' : 'stop');
    if (a.usage) write([], { usage: { ...a.usage, total_tokens: a.usage.prompt_tokens + a.usage.completion_tokens } });
    if (!res.destroyed) res.end('data: [DONE]\n\n');
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

  const fake: Omit<FakeLlm, keyof typeof state> = {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    get completionRequests() {
      return requests.filter((r) => r.method === 'POST' && r.path === '/v1/chat/completions');
    },
    breakStreamNext(count, afterChunks = 2) {
      for (let i = 0; i < count; i++) breaks.push(afterChunks);
    },
    handoffNext(reason, count = 1) {
      for (let i = 0; i < count; i++) handoffs.push(reason);
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
      breaks.length = 0;
      handoffs.length = 0;
      state.delayMs = options.delayMs ?? 0;
      state.chunkChars = options.chunkChars ?? 4;
      state.chunkDelayMs = options.chunkDelayMs ?? 0;
      state.rejectTools = options.rejectTools ?? false;
      state.rejectResponseFormat = options.rejectResponseFormat ?? false;
      state.groundedAsIs = options.groundedAsIs ?? false;
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
  // The settings a test may change between calls (llm.reply = …, llm.delayMs = …) read and write `state`.
  for (const key of Object.keys(state) as (keyof typeof state)[]) {
    Object.defineProperty(fake, key, { get: () => state[key], set: (value) => void Object.assign(state, { [key]: value }), enumerable: true });
  }
  return fake as FakeLlm;
}

function now(): number {
  return Math.floor(Date.now() / 1000);
}

/** How many knowledge-base passages a grounded request numbers (0: not a grounded request). */
export function groundedPassages(body: ChatCompletionBody): number {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const context = messages.find((m) => m?.role === 'system' && typeof m.content === 'string' && m.content.startsWith('Knowledge base passages, numbered:'));
  return context ? (context.content as string).match(/^\[\d+\] /gm)?.length ?? 0 : 0;
}

function lastUserMessage(body: ChatCompletionBody): string {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message?.role === 'user') return typeof message.content === 'string' ? message.content : JSON.stringify(message.content);
  }
  return '';
}
