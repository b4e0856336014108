import type { ExperimentAssignment } from '../agents/experiments.js';
import type { AnswerProvenance, HandoffCause } from '../answers/provenance.js';

/**
 * The agent's answer to the customer, as the conversation decider records it (AgentReplied). Its own module so
 * the action-call decisions, which the decider composes, can name the reply fields without importing the decider.
 */
export interface AppendAgentReply {
  type: 'AppendAgentReply';
  messageId: string;
  sessionId: string;
  agentId: string | null;
  text: string;
  inReplyTo: string[];
  model: string;
  inputTokens: number;
  outputTokens: number;
  handoff: boolean;
  /** The model's reason for a handoff (bounded plain text); kept only when `handoff`. */
  handoffReason?: string;
  /** Why the answerer handed off, when it decided so itself; kept only when `handoff`. */
  handoffCause?: HandoffCause;
  provenance?: AnswerProvenance;
  agentVersion?: number;
  /** Outside business hours: when people are back; kept only when `handoff`. */
  backAt?: string;
  /** Answered in an experiment: the conversation joins it in `arm` unless it already has (ExperimentArmAssigned). */
  experiment?: ExperimentJoin;
  now: string;
}

/** The experiment arm a reply is written in (version null: the holdout's handoff). */
export interface ExperimentJoin {
  experimentId: string;
  agentId: string;
  arm: ExperimentAssignment;
  version: number | null;
}
