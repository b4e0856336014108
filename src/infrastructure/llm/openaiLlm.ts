import type OpenAI from 'openai';
import type { ChatCompletion, ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import {
  type LlmConnectionTest,
  type LlmMessage,
  type LlmPassage,
  type LlmProvider,
  type LlmRequest,
  type LlmResponse,
  LlmError,
} from '../../ports/llm.js';
import { createGuardedFetch, ResponseTooLargeError } from '../net/guardedFetch.js';
import { isSsrfRefusal, type Resolver } from '../net/ssrfGuard.js';

/**
 * LLM adapter for any OpenAI-compatible Chat Completions API (OpenAI, Azure-compatible gateways, Ollama,
 * vLLM) through the official `openai` SDK with `baseURL`.
 *
 * - Timeouts are per attempt; the SDK retries timeouts, connection errors, 408/409/429/5xx up to
 *   `maxRetries` times with exponential backoff (or the server's retry-after), so the worst case is
 *   about `timeoutMs × (maxRetries + 1)` plus backoff. Pass `signal` to cancel earlier.
 * - Every failure becomes an `LlmError` whose message never contains the API key (scrubbed even when
 *   the provider echoes it back) nor anything of the server's response body (a status and our own words
 *   only: the body of a service the URL should not have reached must not be readable through an error),
 *   and the SDK error is never attached as `cause`.
 * - The SDK fetches through `createGuardedFetch` (SSRF): the base URL is checked when called, every
 *   resolved address is checked at connect time, and redirects are never followed.
 * - Nothing is read from the environment: the SDK would otherwise pick up OPENAI_API_KEY /
 *   OPENAI_ORG_ID / OPENAI_PROJECT_ID / OPENAI_BASE_URL and send the operator's credentials to a
 *   company-configured server. (OPENAI_CUSTOM_HEADERS cannot be disabled this way: do not set it.)
 * - `passages` and `handoffMessage`, when given, are added to the prompt as one system message after the
 *   leading system message(s); an answer equal to the handoff message comes back with `handoff: true`.
 */

export interface OpenAiLlmOptions {
  /** e.g. https://api.openai.com/v1, http://localhost:11434/v1 (Ollama), http://vllm:8000/v1 */
  baseUrl: string;
  /** Optional for servers that need none (Ollama, vLLM without --api-key). */
  apiKey?: string;
  /** Per attempt. Default 30 000. */
  timeoutMs?: number;
  /** SDK retries after the first attempt. Default 2. */
  maxRetries?: number;
  /** Address policy for the base URL (SSRF). Default: private addresses refused, http allowed. */
  network?: LlmNetworkPolicy;
}

export interface LlmNetworkPolicy {
  /** ALLOW_PRIVATE_PLATFORM_URLS: permits loopback/private hosts (local LLMs, tests). */
  allowPrivate: boolean;
  /** Production: the base URL must be https. */
  requireHttps?: boolean;
  /** DNS resolver for the connect-time check; tests inject one to simulate names offline. */
  resolver?: Resolver;
}

export const DEFAULT_LLM_TIMEOUT_MS = 30_000;
export const DEFAULT_LLM_MAX_RETRIES = 2;
/** Average characters per token, for estimating usage a server did not report. */
const CHARS_PER_TOKEN = 4;
/** Placeholder bearer token for servers that need none (the SDK insists on a key). */
const NO_KEY = 'no-key';

type Sdk = typeof import('openai');
let sdkLoading: Promise<Sdk> | undefined;
/** The SDK is loaded on first use: most installations never call it, and it costs ~120 ms of start-up per thread. */
const loadSdk = (): Promise<Sdk> => (sdkLoading ??= import('openai'));

export function createOpenAiLlm(options: OpenAiLlmOptions): LlmProvider {
  const apiKey = options.apiKey && options.apiKey.length > 0 ? options.apiKey : undefined;
  const timeoutMs = options.timeoutMs ?? DEFAULT_LLM_TIMEOUT_MS;
  const maxRetries = options.maxRetries ?? DEFAULT_LLM_MAX_RETRIES;
  const parsedUrl = parseUrl(options.baseUrl);
  if (parsedUrl === null || !/^https?:$/.test(parsedUrl.protocol)) {
    throw new LlmError('invalid_request', 'the LLM base URL must be an http(s) URL', false);
  }
  if (parsedUrl.username !== '' || parsedUrl.password !== '') {
    // fetch refuses such URLs anyway; credentials belong in apiKey.
    throw new LlmError('invalid_request', 'the LLM base URL must not contain credentials: use the API key', false);
  }
  const where = displayUrl(options.baseUrl);
  const scrub = makeScrubber(apiKey);

  const clientOptions: ConstructorParameters<typeof OpenAI>[0] = {
    baseURL: options.baseUrl,
    apiKey: apiKey ?? NO_KEY,
    adminAPIKey: null,
    organization: null,
    project: null,
    webhookSecret: null,
    timeout: timeoutMs,
    maxRetries,
    logLevel: 'off',
    fetch: createGuardedFetch({
      allowPrivate: options.network?.allowPrivate ?? false,
      requireHttps: options.network?.requireHttps ?? false,
      ...(options.network?.resolver ? { resolver: options.network.resolver } : {}),
    }),
  };
  let client: { sdk: Sdk; api: OpenAI } | undefined;
  const connect = async () => {
    if (client) return client;
    const sdk = await loadSdk();
    return (client = { sdk, api: new sdk.default(clientOptions) });
  };

  const toLlmError = (error: unknown): LlmError => mapError(error, where, scrub, client?.sdk);

  return {
    async complete(request: LlmRequest): Promise<LlmResponse> {
      const messages = buildMessages(request);
      const params = buildParams(request, messages);
      let completion: ChatCompletion;
      try {
        completion = await (await connect()).api.chat.completions.create(params, { signal: request.signal ?? null });
      } catch (error) {
        throw toLlmError(error);
      }
      return readCompletion(completion, request, messages);
    },

    async testConnection(test = {}): Promise<LlmConnectionTest> {
      const started = Date.now();
      const requestOptions = { signal: test.signal ?? null, maxRetries: 0, timeout: Math.min(timeoutMs, 10_000) };
      try {
        if (test.model) {
          // Any well-formed completion proves URL, key and model; the content itself does not matter.
          const completion = await (await connect()).api.chat.completions.create(
            buildParams({ model: test.model, messages: [], maxTokens: 16 }, [{ role: 'user', content: 'ping' }]),
            requestOptions,
          );
          if (!Array.isArray((completion as Partial<ChatCompletion>).choices)) {
            throw new LlmError('bad_response', `the LLM API at ${where} did not answer like a Chat Completions API`, false);
          }
          const reported = typeof completion.model === 'string' && completion.model.length > 0 ? completion.model.slice(0, 200) : test.model;
          return { ok: true, latencyMs: Date.now() - started, models: [reported] };
        }
        const page = await (await connect()).api.models.list(requestOptions);
        const models = Array.isArray(page.data) ? page.data.map((m) => String(m.id)).slice(0, 200) : [];
        return { ok: true, latencyMs: Date.now() - started, models };
      } catch (error) {
        return { ok: false, latencyMs: Date.now() - started, error: toLlmError(error) };
      }
    },
  };
}

// --- request ---------------------------------------------------------------------------------

/**
 * OpenAI's reasoning models (o1/o3/o4…, gpt-5…) reject `max_tokens` and any non-default temperature:
 * for them the limit goes in `max_completion_tokens` and temperature is left out. Everyone else gets
 * `max_tokens`, which every compatible server understands (Ollama, vLLM, older gateways).
 */
export function isReasoningModel(model: string): boolean {
  const name = model.toLowerCase().slice(model.lastIndexOf('/') + 1);
  return /^o\d/.test(name) || name.startsWith('gpt-5');
}

function buildParams(request: LlmRequest, messages: LlmMessage[]): ChatCompletionCreateParamsNonStreaming {
  const reasoning = isReasoningModel(request.model);
  const params: ChatCompletionCreateParamsNonStreaming = {
    model: request.model,
    messages: messages.map((m) => ({ role: m.role, content: m.content })),
  };
  if (request.temperature !== undefined && !reasoning) params.temperature = request.temperature;
  if (request.maxTokens !== undefined) {
    if (reasoning) params.max_completion_tokens = request.maxTokens;
    else params.max_tokens = request.maxTokens;
  }
  return params;
}

function buildMessages(request: LlmRequest): LlmMessage[] {
  const context = contextMessage(request.passages ?? [], request.handoffMessage);
  if (context === null) return request.messages;
  const firstNonSystem = request.messages.findIndex((m) => m.role !== 'system');
  const at = firstNonSystem < 0 ? request.messages.length : firstNonSystem;
  return [...request.messages.slice(0, at), { role: 'system', content: context }, ...request.messages.slice(at)];
}

function contextMessage(passages: LlmPassage[], handoffMessage: string | undefined): string | null {
  const parts: string[] = [];
  if (passages.length > 0) {
    parts.push(
      'Knowledge base excerpts (use them to answer; do not invent facts they do not support):\n\n' +
        passages.map((p, i) => `[${i + 1}] ${p.title}\n${p.text.trim()}`).join('\n\n'),
    );
  }
  const handoff = handoffMessage?.trim();
  if (handoff) {
    parts.push(
      'If you cannot answer from the conversation and the knowledge base, reply with exactly this text and nothing else:\n' +
        handoff,
    );
  }
  return parts.length === 0 ? null : parts.join('\n\n');
}

// --- response --------------------------------------------------------------------------------

function readCompletion(
  completion: ChatCompletion,
  request: LlmRequest,
  sentMessages: LlmMessage[],
): LlmResponse {
  const shape = completion as unknown as { choices?: unknown; model?: unknown; usage?: unknown };
  const choice = Array.isArray(shape.choices) ? (shape.choices[0] as Partial<ChatCompletion.Choice> | undefined) : undefined;
  const content = choice?.message?.content;
  if (typeof content !== 'string') {
    // The refusal text itself is the server's words: not repeated.
    const refusal = choice?.message?.refusal;
    const reason = typeof refusal === 'string' && refusal.length > 0 ? 'the model refused to answer' : 'the response has no choices[0].message.content';
    throw new LlmError('bad_response', `malformed LLM response: ${reason}`, false);
  }
  if (content.trim().length === 0) {
    throw new LlmError(
      'bad_response',
      `the model returned an empty answer (finish_reason: ${String(choice?.finish_reason ?? 'unknown')})`,
      false,
    );
  }
  const text = content.trim();
  const model = typeof shape.model === 'string' && shape.model.length > 0 ? shape.model : request.model;

  const usage = shape.usage as { prompt_tokens?: unknown; completion_tokens?: unknown } | undefined | null;
  const reportedIn = usage?.prompt_tokens;
  const reportedOut = usage?.completion_tokens;
  const valid = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n) && n >= 0;
  let usageEstimated = false;
  let inputTokens: number;
  let outputTokens: number;
  if (valid(reportedIn) && valid(reportedOut)) {
    inputTokens = Math.ceil(reportedIn);
    outputTokens = Math.ceil(reportedOut);
  } else {
    // Some compatible servers omit usage. Estimate ~4 characters per token (rounded up) so the reply is
    // still charged, never free; the estimate is flagged with usageEstimated.
    usageEstimated = true;
    const promptChars = sentMessages.reduce((sum, m) => sum + m.content.length, 0);
    inputTokens = valid(reportedIn) ? Math.ceil(reportedIn) : Math.ceil(promptChars / CHARS_PER_TOKEN);
    outputTokens = valid(reportedOut) ? Math.ceil(reportedOut) : Math.ceil(content.length / CHARS_PER_TOKEN);
  }

  const handoff = request.handoffMessage !== undefined && sameText(text, request.handoffMessage);
  return {
    text,
    usage: { inputTokens, outputTokens },
    model,
    ...(handoff ? { handoff: true } : {}),
    ...(usageEstimated ? { usageEstimated: true } : {}),
  };
}

function sameText(a: string, b: string): boolean {
  const norm = (s: string) =>
    s
      .trim()
      .replace(/^["'“”‘’]+|["'“”‘’]+$/g, '')
      .replace(/\s+/g, ' ')
      .toLowerCase();
  return norm(b).length > 0 && norm(a) === norm(b);
}

// --- errors ----------------------------------------------------------------------------------

function mapError(error: unknown, where: string, scrub: (s: string) => string, sdk: Sdk | undefined): LlmError {
  if (error instanceof LlmError) return error;
  const detail = (e: { message: string }) => scrub(e.message).slice(0, 300);
  if (sdk === undefined) {
    const message = error instanceof Error ? detail(error) : scrub(String(error)).slice(0, 300);
    return new LlmError('invalid_request', `the LLM client could not be loaded: ${message}`, false);
  }
  const { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError, OpenAIError } = sdk;

  // Order matters: the abort/connection errors are APIError subclasses without a status.
  if (error instanceof APIUserAbortError) {
    return new LlmError('aborted', 'the LLM request was cancelled', false);
  }
  if (error instanceof APIConnectionTimeoutError) {
    return new LlmError('timeout', `the LLM API at ${where} did not answer in time`, true);
  }
  if (error instanceof APIConnectionError) {
    const cause = (error as { cause?: unknown }).cause;
    if (isSsrfRefusal(cause)) {
      // Our own guard's words (host, address class, address): safe, and the operator needs them.
      return new LlmError('invalid_request', `the LLM base URL is not allowed: ${scrub(cause.message).slice(0, 200)}`, false);
    }
    if (cause instanceof ResponseTooLargeError) {
      return new LlmError('bad_response', `the LLM API at ${where} sent a response that is too large`, false);
    }
    // Node's socket errors (ECONNREFUSED, ENOTFOUND…) say nothing of a response body.
    const causeText = cause instanceof Error ? ` (${scrub(cause.message).slice(0, 200)})` : '';
    return new LlmError('unreachable', `could not reach the LLM API at ${where}${causeText}`, true);
  }
  if (error instanceof APIError && typeof error.status === 'number') {
    // The SDK's message carries the response body: it is never repeated, only the status is reported.
    const status = error.status;
    const prefix = `the LLM API at ${where} answered HTTP ${status}`;
    if (status >= 300 && status < 400) {
      return new LlmError('bad_response', `${prefix}, a redirect; redirects are not followed: use the final URL as the base URL`, false, status);
    }
    if (status === 401 || status === 403) {
      return new LlmError('auth', `${prefix}: the API key was rejected or lacks permission`, false, status);
    }
    if (status === 429) {
      // OpenAI uses 429 for an exhausted quota too; retrying that only burns time. (The code is read, not echoed.)
      const quota = error.code === 'insufficient_quota';
      return new LlmError('rate_limited', `${prefix}: ${quota ? 'quota exhausted' : 'rate limited'}`, !quota, status);
    }
    if (status === 408) return new LlmError('timeout', `${prefix}: request timeout`, true, status);
    if (status >= 500 || status === 409) return new LlmError('server_error', `${prefix}: server error`, true, status);
    if (status === 404) return new LlmError('invalid_request', `${prefix}: unknown model, or the base URL is wrong`, false, status);
    return new LlmError('invalid_request', `${prefix}: the request was rejected (check the model name)`, false, status);
  }
  if (error instanceof SyntaxError) {
    return new LlmError('bad_response', `the LLM API at ${where} sent a response that is not valid JSON`, false);
  }
  if (error instanceof OpenAIError) {
    return new LlmError('invalid_request', `LLM client error: ${detail(error)}`, false);
  }
  const message = error instanceof Error ? detail(error) : scrub(String(error)).slice(0, 300);
  return new LlmError('bad_response', `unexpected LLM failure: ${message}`, false);
}

/** Removes the API key, bearer tokens and OpenAI-style keys from a message meant for logs or operators. */
export function makeScrubber(apiKey: string | undefined): (text: string) => string {
  return (text: string) => {
    let out = text;
    if (apiKey && apiKey.length >= 4) out = out.split(apiKey).join('[redacted]');
    return out
      .replace(/Bearer\s+[^\s"',;]+/gi, 'Bearer [redacted]')
      .replace(/\bsk-[A-Za-z0-9_*.-]{4,}/g, '[redacted]')
      .replace(/(\/\/)[^/\s@]+@/g, '$1'); // credentials in URLs
  };
}

function parseUrl(url: string): URL | null {
  try {
    return new URL(url);
  } catch {
    return null;
  }
}

/** The base URL without credentials, query or fragment, for messages. */
function displayUrl(baseUrl: string): string {
  try {
    const url = new URL(baseUrl);
    return `${url.protocol}//${url.host}${url.pathname.replace(/\/$/, '')}`;
  } catch {
    return '(invalid base URL)';
  }
}
