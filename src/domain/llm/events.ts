import { z } from 'zod';

/**
 * A company's LLM configuration, carried on the company stream (`company-<companyId>`) next to the
 * company's own events. `builtin` (the default, no key) answers from the knowledge base alone; `openai` is
 * any OpenAI-compatible Chat Completions API at `baseUrl`. The API key is sealed (AES-256-GCM, `v1:`
 * envelope) before it enters an event and is never given back: views say `hasApiKey`.
 */

export const llmProvider = z.enum(['builtin', 'openai']);
export type LlmProviderName = z.infer<typeof llmProvider>;

export const LLM_CONFIG_LIMITS = { baseUrl: 2048, model: 200, apiKey: 1024 } as const;

const sealed = z.string().startsWith('v1:').max(4096);

export const llmConfigEvents = {
  LlmConfigured: z.object({
    provider: llmProvider,
    baseUrl: z.string().max(LLM_CONFIG_LIMITS.baseUrl).nullable(),
    model: z.string().min(1).max(LLM_CONFIG_LIMITS.model).nullable(),
    apiKey: sealed.nullable(),
    at: z.iso.datetime(),
  }),
};
type Events = typeof llmConfigEvents;
export type LlmConfigEvent = { [K in keyof Events]: { type: K; data: z.infer<Events[K]> } }[keyof Events];
