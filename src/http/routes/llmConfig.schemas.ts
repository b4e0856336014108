import { z } from 'zod';
import type { CompanyLlmConfig } from '../../domain/llm/state.js';
import { LLM_CONFIG_LIMITS, llmProvider } from '../../domain/llm/events.js';
import { bearerSecurity as security, errorBody, errorResponses } from './schemas.js';

export const llmConfigSchema = z.object({
  provider: llmProvider,
  baseUrl: z.string().nullable(),
  model: z.string().nullable(),
  hasApiKey: z.boolean(),
});

/** The key is write-only: a view says whether one is stored, never what it is. */
export const llmConfigView = (c: CompanyLlmConfig): z.infer<typeof llmConfigSchema> => ({
  provider: c.provider,
  baseUrl: c.baseUrl,
  model: c.model,
  hasApiKey: c.sealedApiKey !== null,
});

const configBody = z.strictObject({
  provider: llmProvider,
  baseUrl: z.string().trim().max(LLM_CONFIG_LIMITS.baseUrl).nullable().optional(),
  /** Write-only. Omitted: keep the stored key; null or "": remove it; a string: replace it. */
  apiKey: z.string().max(LLM_CONFIG_LIMITS.apiKey).nullable().optional(),
  model: z.string().trim().max(LLM_CONFIG_LIMITS.model).nullable().optional(),
});

const tags = ['llm'];
const response = z.object({ llmConfig: llmConfigSchema });

export const getLlmConfigSchema = { tags, security, response: { 200: response, ...errorResponses } };

export const putLlmConfigSchema = { tags, security, body: configBody, response: { 200: response, ...errorResponses } };

export const testLlmConfigSchema = {
  tags,
  security,
  description:
    'Tests the saved configuration, or the one in the body (same shape as PUT) without saving it. An omitted apiKey uses the saved key only when baseUrl is the saved one.',
  body: configBody.nullish(),
  response: { 200: z.object({ ok: z.literal(true), model: z.string(), latencyMs: z.number() }), 502: errorBody, ...errorResponses },
};
