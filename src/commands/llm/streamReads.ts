import { companyStream } from '../../domain/company/decider.js';
import { llmConfigDecider } from '../../domain/llm/decider.js';
import { type CompanyLlmConfig } from '../../domain/llm/state.js';
import type { EventStore } from '../../ports/eventStore.js';
import { loadState } from '../handleCommand.js';

/**
 * The company's current LLM configuration from its stream (strongly consistent: a change applies to the
 * very next reply); `{provider:'builtin', baseUrl:null, model:null, sealedApiKey:null}` when never configured.
 */
export async function loadLlmConfig(eventStore: EventStore, companyId: string): Promise<CompanyLlmConfig> {
  const { state } = await loadState(eventStore, companyStream(companyId), llmConfigDecider);
  const { configuredAt: _c, ...config } = state;
  return config;
}
