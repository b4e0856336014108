import { createHash } from 'node:crypto';
import type { SecretBox } from '../../ports/secretBox.js';
import { LlmError, type LlmProvider, type LlmResolver } from '../../ports/llm.js';
import { inSpan, SpanKind } from '../../ports/tracing.js';
import { createBuiltinLlm } from './builtinLlm.js';
import { createOpenAiLlm, DEFAULT_LLM_MAX_RETRIES, DEFAULT_LLM_TIMEOUT_MS, type LlmNetworkPolicy } from './openaiLlm.js';

export interface LlmResolverOptions {
  secretBox: SecretBox;
  /** Per attempt; default 30 000. */
  timeoutMs?: number;
  /** SDK retries after the first attempt; default 2. */
  maxRetries?: number;
  /** Most OpenAI-compatible clients kept (least recently used dropped first). Default 256. */
  maxCachedClients?: number;
  /**
   * Address policy for company base URLs (SSRF), checked on every connection. Default: private, loopback
   * and link-local addresses refused (ALLOW_PRIVATE_PLATFORM_URLS lifts it).
   */
  network?: LlmNetworkPolicy;
}

/**
 * Builds the provider for a company's configuration: one shared builtin provider, and one OpenAI-compatible
 * client per (baseUrl, key) — cached under a SHA-256 of the key, so neither the key nor its ciphertext is a
 * map key — and reused across companies and calls (the SDK keeps its connections).
 */
export function createLlmResolver(options: LlmResolverOptions): LlmResolver {
  const builtin = traced(createBuiltinLlm(), 'builtin');
  const timeoutMs = options.timeoutMs ?? DEFAULT_LLM_TIMEOUT_MS;
  const maxRetries = options.maxRetries ?? DEFAULT_LLM_MAX_RETRIES;
  const maxClients = Math.max(1, options.maxCachedClients ?? 256);
  const clients = new Map<string, LlmProvider>();

  return (config) => {
    if (config.provider === 'builtin') return builtin;
    if (config.baseUrl === null) throw new LlmError('invalid_request', 'the LLM configuration has no base URL', false);
    let apiKey: string | undefined;
    if (config.sealedApiKey !== null) {
      try {
        apiKey = options.secretBox.open(config.sealedApiKey);
      } catch {
        // The master key changed or the envelope is damaged: say so without any detail of the secret.
        throw new LlmError('auth', 'the stored LLM API key cannot be decrypted (was MASTER_KEY changed?): set the key again', false);
      }
    }
    const cacheKey = `${config.baseUrl}\u0000${apiKey === undefined ? '-' : createHash('sha256').update(apiKey).digest('hex')}`;
    const cached = clients.get(cacheKey);
    if (cached !== undefined) {
      clients.delete(cacheKey);
      clients.set(cacheKey, cached); // most recently used last
      return cached;
    }
    const client = traced(createOpenAiLlm({
      baseUrl: config.baseUrl,
      ...(apiKey !== undefined ? { apiKey } : {}),
      timeoutMs,
      maxRetries,
      ...(options.network ? { network: options.network } : {}),
    }), 'openai');
    clients.set(cacheKey, client);
    if (clients.size > maxClients) {
      const oldest = clients.keys().next().value;
      if (oldest !== undefined) clients.delete(oldest);
    }
    return client;
  };
}

/**
 * Each completion as a span named by the OpenTelemetry GenAI conventions ("chat <model>", gen_ai.* attributes):
 * the model asked for, the one that answered and the tokens, never the prompt or the answer. With tracing off
 * the span is the API's no-op.
 */
function traced(provider: LlmProvider, system: string): LlmProvider {
  return {
    ...(provider.free ? { free: true as const } : {}),
    testConnection: (options) => provider.testConnection(options),
    complete: (request) =>
      inSpan(
        `chat ${request.model}`,
        { kind: SpanKind.CLIENT, attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': system, 'gen_ai.request.model': request.model } },
        async (span) => {
          const response = await provider.complete(request);
          span.setAttributes({
            'gen_ai.response.model': response.model,
            'gen_ai.usage.input_tokens': response.usage.inputTokens,
            'gen_ai.usage.output_tokens': response.usage.outputTokens,
          });
          return response;
        },
      ),
  };
}
