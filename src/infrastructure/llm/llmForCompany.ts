import { createHash } from 'node:crypto';
import type { SecretBox } from '../../ports/secretBox.js';
import type { CompanyLlmConfig } from '../../domain/llm/state.js';
import { LlmError, type LlmProvider } from '../../ports/llm.js';
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

/** A company's LLM configuration → the provider that answers for it. Throws LlmError only. */
export type LlmResolver = (config: CompanyLlmConfig) => LlmProvider;

/**
 * Builds the provider for a company's configuration: one shared builtin provider, and one OpenAI-compatible
 * client per (baseUrl, key) — cached under a SHA-256 of the key, so neither the key nor its ciphertext is a
 * map key — and reused across companies and calls (the SDK keeps its connections).
 */
export function createLlmResolver(options: LlmResolverOptions): LlmResolver {
  const builtin = createBuiltinLlm();
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
    const client = createOpenAiLlm({
      baseUrl: config.baseUrl,
      ...(apiKey !== undefined ? { apiKey } : {}),
      timeoutMs,
      maxRetries,
      ...(options.network ? { network: options.network } : {}),
    });
    clients.set(cacheKey, client);
    if (clients.size > maxClients) {
      const oldest = clients.keys().next().value;
      if (oldest !== undefined) clients.delete(oldest);
    }
    return client;
  };
}
