import type { Decider } from '../decider.js';
import { DomainError } from '../errors.js';
import { refuseSecretToNewDestination } from '../secretDestinations.js';
import { LLM_CONFIG_LIMITS, type LlmConfigEvent, type LlmProviderName } from './events.js';
import { evolveLlmConfig, initialLlmConfigState, type CompanyLlmConfig, type LlmConfigState } from './state.js';

export type LlmConfigCommand = {
  type: 'ConfigureLlm';
  provider: LlmProviderName;
  baseUrl: string | null;
  model: string | null;
  /** Sealed. undefined keeps the current key, null clears it, a string replaces it. */
  apiKey: string | null | undefined;
  now: string;
};

/** An absolute http(s) URL without credentials (a key belongs in apiKey, never in the URL). */
export function isLlmBaseUrl(value: string): boolean {
  if (value.length > LLM_CONFIG_LIMITS.baseUrl) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '' && url.username === '' && url.password === '';
  } catch {
    return false;
  }
}

const invalid = (message: string) => new DomainError('VALIDATION_ERROR', message);

/** Validates a configuration as the decider will store it (used by the API's "test" before saving, too). */
export function checkLlmConfig(config: Pick<CompanyLlmConfig, 'provider' | 'baseUrl' | 'model'>): void {
  if (config.baseUrl !== null && !isLlmBaseUrl(config.baseUrl)) throw invalid('baseUrl: must be an http(s) URL without credentials');
  if (config.model !== null && (config.model.length === 0 || config.model.length > LLM_CONFIG_LIMITS.model)) {
    throw invalid(`model: must be 1 to ${LLM_CONFIG_LIMITS.model} characters`);
  }
  if (config.provider === 'openai') {
    if (config.baseUrl === null) throw invalid('baseUrl: required for the openai provider');
    if (config.model === null) throw invalid('model: required for the openai provider');
  }
}

export const llmConfigDecider: Decider<LlmConfigCommand, LlmConfigEvent, LlmConfigState> = {
  initialState: initialLlmConfigState,
  evolve: evolveLlmConfig,
  decide(command, state) {
    checkLlmConfig(command);
    refuseSecretToNewDestination('apiKey', 'API key', state.baseUrl, command.baseUrl, state.sealedApiKey !== null && command.apiKey === undefined);
    const apiKey = command.apiKey === undefined ? state.sealedApiKey : command.apiKey;
    const unchanged =
      state.configuredAt !== null &&
      state.provider === command.provider &&
      state.baseUrl === command.baseUrl &&
      state.model === command.model &&
      command.apiKey === undefined;
    // Re-sending the same key seals it anew (random nonce), so only an omitted key counts as "unchanged".
    if (unchanged) return [];
    return [{ type: 'LlmConfigured', data: { provider: command.provider, baseUrl: command.baseUrl, model: command.model, apiKey, at: command.now } }];
  },
};
