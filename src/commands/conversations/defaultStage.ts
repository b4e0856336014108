import { companyDecider, companyStream } from '../../domain/company/decider.js';
import { conversationDecider, conversationStream } from '../../domain/conversations/decider.js';
import { cachedState, loadState } from '../handleCommand.js';
import type { CommandDeps } from '../deps.js';

/** A new conversation starts in the first stage of the company's pipeline. */
export async function defaultStage(deps: CommandDeps, companyId: string, conversationId: string): Promise<string | null> {
  // The stage only matters when the conversation starts. One this process already saw exist still exists, so
  // no read is needed: handleCommand reads the stream right after anyway (one store read less per message).
  const known = cachedState(deps.eventStore, conversationStream(conversationId), conversationDecider);
  if (known?.state.exists) return known.state.stageId;
  const { state } = await loadState(deps.eventStore, conversationStream(conversationId), conversationDecider);
  if (state.exists) return state.stageId;
  const { state: company } = await loadState(deps.eventStore, companyStream(companyId), companyDecider);
  return company.exists ? (company.pipeline?.stages[0]?.id ?? null) : null;
}
