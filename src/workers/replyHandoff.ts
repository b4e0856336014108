import { loadIntegration } from '../commands/integrations/queries.js';
import { handleCommand, loadState } from '../commands/handleCommand.js';
import { conversationDecider, conversationStream, type HandoffNotice } from '../domain/conversations/decider.js';
import type { GenerateReplyJob } from './jobs.js';
import { now, replyIdOf, type Outcome, type ReplyWorkerDeps } from './replyDeps.js';

/**
 * A message the AI cannot get to in time goes to people, if the AI would have answered it at all: a session
 * someone closed or took over, or an integration deleted or switched off meanwhile, records nothing (as when
 * its turn comes).
 */
export async function handToPeople(deps: ReplyWorkerDeps, job: GenerateReplyJob, reason: string): Promise<Outcome> {
  const { state } = await loadState(deps.eventStore, conversationStream(job.conversationId), conversationDecider);
  if (!state.unanswered.includes(job.messageId)) return { result: 'skipped', reason: 'already answered' };
  if (state.session?.state !== 'active') return { result: 'skipped', reason: `the AI session is ${state.session?.state ?? 'missing'}` };
  const integration = state.integrationId === null ? null : await loadIntegration(deps.eventStore, state.integrationId);
  if (integration === null || !integration.active) return { result: 'dropped', reason: 'integration deleted or inactive' };
  await markUnanswered(deps, job, reason);
  return { result: 'backlog', reason };
}

/** `tellCustomer`: the customer gets the agent's handoff message too (a failure must not mean silence). */
export async function markUnanswered(deps: ReplyWorkerDeps, job: GenerateReplyJob, reason: string, tellCustomer = false) {
  const { state } = await loadState(deps.eventStore, conversationStream(job.conversationId), conversationDecider);
  if (state.unanswered.length === 0) return;
  const notice = tellCustomer ? await handoffNotice(deps, job, state.integrationId) : null;
  await handleCommand(
    deps.eventStore,
    conversationStream(job.conversationId),
    conversationDecider,
    { type: 'MarkUnanswered', messageIds: [...state.unanswered], reason: reason.slice(0, 500), handoff: true, ...(notice ? { notice } : {}), now: now(deps) },
    { metadata: { companyId: job.companyId, actor: 'ai-agent' } },
  );
}

/** The integration's agent's handoff message as the reply to this job's message; null without an active agent. */
async function handoffNotice(deps: ReplyWorkerDeps, job: GenerateReplyJob, integrationId: number | null): Promise<HandoffNotice | null> {
  const integration = integrationId === null ? null : await loadIntegration(deps.eventStore, integrationId);
  const agent = integration?.agentId ? await deps.loadAgent(job.companyId, integration.agentId) : null;
  return agent?.active ? { messageId: replyIdOf(job.messageId), agentId: agent.agentId, text: agent.handoffMessage } : null;
}
