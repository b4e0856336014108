import type { LlmConfigEvent, LlmProviderName } from './events.js';

/** The configuration as commands and the reply pipeline use it (the key still sealed). */
export interface CompanyLlmConfig {
  provider: LlmProviderName;
  baseUrl: string | null;
  model: string | null;
  sealedApiKey: string | null;
}

export const DEFAULT_LLM_CONFIG: CompanyLlmConfig = { provider: 'builtin', baseUrl: null, model: null, sealedApiKey: null };

export type LlmConfigState = CompanyLlmConfig & { configuredAt: string | null };

export const initialLlmConfigState: LlmConfigState = { ...DEFAULT_LLM_CONFIG, configuredAt: null };

export function evolveLlmConfig(state: LlmConfigState, event: LlmConfigEvent): LlmConfigState {
  switch (event.type) {
    case 'LlmConfigured': {
      const { apiKey, at, ...rest } = event.data;
      return { ...rest, sealedApiKey: apiKey, configuredAt: at };
    }
    default:
      // The company stream carries the company's other events (registration, pipeline).
      return state;
  }
}
