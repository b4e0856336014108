import { assignArm, HOLDOUT_REASON } from '../../domain/agents/experiments.js';
import { NO_MODEL, type ConversationCommand, type ExperimentJoin } from '../../domain/conversations/decider.js';
import type { ConversationState } from '../../domain/conversations/state.js';
import { DomainError } from '../../domain/errors.js';
import { afterHours, withAfterHours } from './replyDecisions.js';
import { now, type AgentProfile, type Outcome, type ReplyWorkerDeps } from './replyDecisions.js';

/** What answers a conversation of an agent: the published version, or the experiment's arm it joined or falls in. */
export type ArmChoice = { agent: AgentProfile; join: ExperimentJoin | null };

/**
 * Without a running experiment, the published version. With one, the arm the conversation already joined (so a
 * conversation keeps its arm), else the arm its id falls in (assignArm): that arm's version answers, and the
 * reply records the join. The holdout answers nothing: holdOut hands it to people.
 */
export function chooseArm(agent: AgentProfile, state: Pick<ConversationState, 'experiment'>, conversationId: string): ArmChoice {
  const experiment = agent.experiment;
  if (!experiment) return { agent, join: null };
  const { experimentId } = experiment;
  const arm = state.experiment?.experimentId === experimentId ? state.experiment.arm : assignArm(experiment, conversationId);
  const chosen = arm === 'holdout' ? undefined : experiment.arms.find((a) => a.arm === arm);
  if (!chosen) return { agent, join: { experimentId, agentId: agent.agentId, arm: 'holdout', version: null } };
  const { experiment: _e, ...identity } = agent;
  return { agent: { ...identity, ...chosen.behaviour }, join: { experimentId, agentId: agent.agentId, arm, version: chosen.behaviour.version ?? null } };
}

export interface HoldOut {
  job: { companyId: string; conversationId: string; messageId: string };
  sessionId: string;
  unanswered: string[];
  replyId: string;
  agent: AgentProfile;
  join: ExperimentJoin;
  command(c: ConversationCommand): Promise<unknown>;
}

/**
 * A holdout conversation goes straight to people: the customer reads the agent's handoff message (no model is
 * called, nothing is charged) and the conversation waits in "Needs human" for the reason "experiment holdout".
 */
export async function holdOut(deps: ReplyWorkerDeps, h: HoldOut): Promise<Outcome> {
  const after = await afterHours(deps, h.job.companyId, h.agent);
  try {
    await h.command({
      type: 'AppendAgentReply',
      messageId: h.replyId,
      sessionId: h.sessionId,
      agentId: h.agent.agentId,
      text: after ? withAfterHours(h.agent.handoffMessage, after) : h.agent.handoffMessage,
      inReplyTo: h.unanswered,
      model: NO_MODEL,
      inputTokens: 0,
      outputTokens: 0,
      handoff: true,
      handoffReason: HOLDOUT_REASON,
      handoffCause: 'experiment_holdout',
      experiment: h.join,
      ...(after ? { backAt: after.backAt } : {}),
      now: now(deps),
    });
  } catch (err) {
    if (err instanceof DomainError && err.code === 'REPLY_DROPPED') return { result: 'dropped', reason: err.message };
    throw err;
  }
  return { result: 'replied', reason: 'experiment holdout: handed to people' };
}
