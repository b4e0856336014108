import { loadIntegration } from '../commands/integrations/queries.js';
import { handleCommand } from '../commands/handleCommand.js';
import { conversationDecider, conversationStream } from '../domain/conversations/decider.js';
import type { ConversationState } from '../domain/conversations/state.js';
import type { GenerateReplyJob } from './jobs.js';
import { now, type ReplyWorkerDeps } from './replyDeps.js';

/**
 * A conversation people have (handed off, or a teammate answered) stays with them whatever the customer writes,
 * unless its agent has a hand-back timeout and the customer wrote that long after people last had it: then the
 * AI resumes and answers. The decider checks the pause's reason and the times; this only finds the setting.
 * Costs two cached stream reads per message on a paused conversation, whatever its length.
 */
export async function handBackIfDue(deps: ReplyWorkerDeps, job: GenerateReplyJob, state: ConversationState): Promise<ConversationState> {
  if (state.session?.state !== 'paused' || state.integrationId === null) return state;
  const integration = await loadIntegration(deps.eventStore, state.integrationId);
  if (!integration?.active || !integration.agentId) return state;
  const agent = await deps.loadAgent(job.companyId, integration.agentId);
  if (!agent?.active || !agent.handBackAfterMinutes) return state;
  const result = await handleCommand(
    deps.eventStore,
    conversationStream(job.conversationId),
    conversationDecider,
    { type: 'HandBackToAi', afterMinutes: agent.handBackAfterMinutes, now: now(deps) },
    { metadata: { companyId: job.companyId, actor: 'ai-agent' } },
  );
  if (result.events.length > 0) deps.logger.info({ ...job, afterMinutes: agent.handBackAfterMinutes }, 'conversation handed back to the AI: the hand-back timeout had passed');
  return result.state;
}
