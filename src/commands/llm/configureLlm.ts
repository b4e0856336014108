import { companyStream } from '../../domain/company/decider.js';
import { llmConfigDecider } from '../../domain/llm/decider.js';
import { type CompanyLlmConfig } from '../../domain/llm/state.js';
import { type LlmProviderName } from '../../domain/llm/events.js';
import { handleCommand } from '../handleCommand.js';
import type { CommandDeps } from '../deps.js';
import type { SecretBox } from '../../ports/secretBox.js';

export interface LlmConfigInput {
  provider: LlmProviderName;
  baseUrl?: string | null;
  model?: string | null;
  /** Plain text, write-only: undefined keeps the current key, null (or "") clears it, a string replaces it. */
  apiKey?: string | null;
}

/** Seals the key; an omitted baseUrl or model means none (PUT replaces the whole configuration but the key). */
export function toLlmCommandFields(input: LlmConfigInput, box: SecretBox) {
  return {
    provider: input.provider,
    baseUrl: input.baseUrl === undefined || input.baseUrl === '' ? null : input.baseUrl,
    model: input.model === undefined || input.model === '' ? null : input.model,
    apiKey: input.apiKey === undefined ? undefined : input.apiKey === null || input.apiKey === '' ? null : box.seal(input.apiKey),
  };
}

/** PUT /api/llm-config: replaces the company's LLM configuration (an omitted apiKey keeps the stored one). */
export async function configureLlm(deps: CommandDeps & { secretBox: SecretBox }, input: { companyId: string; userId: string } & LlmConfigInput) {
  const result = await handleCommand(
    deps.eventStore,
    companyStream(input.companyId),
    llmConfigDecider,
    { type: 'ConfigureLlm', ...toLlmCommandFields(input, deps.secretBox), now: deps.clock.now().toISOString() },
    { metadata: { companyId: input.companyId, actor: `user:${input.userId}` } },
  );
  const { configuredAt: _c, ...config } = result.state;
  return { ...result, config: config satisfies CompanyLlmConfig };
}
