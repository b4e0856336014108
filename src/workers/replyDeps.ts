import type { CommandDeps } from '../commands/deps.js';
import { deterministicId } from '../commands/hashing.js';
import type { ExperimentArm } from '../domain/agents/experiments.js';
import type { AnswerThreshold } from '../domain/answers/evidence.js';
import type { Pricing } from '../domain/credits/pricing.js';
import type { Bus } from '../ports/bus.js';
import type { LlmPassage, LlmProvider } from '../ports/llm.js';
import type { JobMetrics } from '../ports/metrics.js';
import type { ReplyLatency } from './replyLatency.js';
import type { ActionCaller } from '../ports/actionCaller.js';
import type { SecretBox } from '../ports/secretBox.js';

export interface AgentProfile {
  agentId: string;
  companyId: string;
  active: boolean;
  name: string;
  systemPrompt: string;
  model: string | null;
  temperature: number;
  useKnowledgeBase: boolean;
  handoffMessage: string;
  answerThreshold?: AnswerThreshold;
  generalAnswers?: boolean;
  /** The published version these settings are, recorded on every answer it writes; absent for a replay's draft. */
  version?: number;
  /** Added to a handoff outside business hours (`{{back}}`: when people are back); absent: the default. */
  afterHoursMessage?: string;
  /** After a handoff, a customer writing this much later gets the AI again; absent: stays with people. */
  handBackAfterMinutes?: number;
  /** The company's actions (by id) this version may call while it answers (replyActions.ts). */
  actionIds?: string[];
  /** The agent's running experiment: its arms answer instead of the published version (replyExperiment.ts). */
  experiment?: ExperimentProfile;
}

/** The behaviour a version gives an agent profile (everything but who the agent is and whether it is on). */
export type Behaviour = Omit<AgentProfile, 'agentId' | 'companyId' | 'active' | 'name' | 'experiment'>;

export interface ExperimentProfile {
  experimentId: string;
  /** Percent of the conversations handed straight to people. */
  holdout: number;
  arms: { arm: ExperimentArm; share: number; behaviour: Behaviour }[];
}

export interface CompanyLlm {
  kind: 'builtin' | 'openai';
  provider: LlmProvider;
  model: string | null;
}

export interface ReplyWorkerDeps extends CommandDeps {
  bus: Bus;
  /** The company's agent, or null when missing, deleted or another company's. */
  loadAgent(companyId: string, agentId: string): Promise<AgentProfile | null>;
  loadLlm(companyId: string): Promise<CompanyLlm>;
  searchKnowledge(companyId: string, query: string, limit: number): Promise<LlmPassage[]>;
  pricing: Pricing;
  /** Messages closer together than this are answered once, together. */
  burstWindowMs: number;
  /** Waits between LLM attempts after a retryable failure (the SDK retries too). */
  llmRetryDelaysMs: number[];
  /** Jobs run at once in this process, and at most this many for one company. */
  concurrency?: number;
  perCompanyConcurrency?: number;
  /**
   * Conversations waiting for a reply in this process at most; beyond it the busiest company's newest one is
   * handed to people ("AI backlog"), so memory stays bounded and a quieter company always gets in.
   */
  queueCapacity?: number;
  /** A message still unanswered this long after it arrived goes to people ("AI backlog") instead of a late answer. */
  maxDelayMs?: number;
  /** Deliveries of one job before it fails for good (its messages are then marked unanswered), and the waits between. */
  maxDeliver?: number;
  backoffMs?: number[];
  /** Jobs held per company, waiting or running (the queue-depth metric). */
  jobMetrics?: JobMetrics;
  /** Notes when the messages of each stored reply arrived, for the send worker's latency figure. */
  replyLatency?: ReplyLatency;
  /** Makes action calls (the company's HTTP endpoints); absent: agents answer without their actions. */
  actions?: ActionDeps;
}

/** What action calls are made with: the caller (through the outbound guard) and the box that opens header values. */
export interface ActionDeps {
  caller: ActionCaller;
  secretBox: SecretBox;
}

/** What became of a reply job. */
export type Outcome = { result: 'replied' | 'skipped' | 'unanswered' | 'dropped' | 'backlog'; reason: string };

/** The reason of a job that leaves its messages to the newest message's job. */
export const LATER_MESSAGE = 'a later message of the burst answers it';

/** The id of the reply a message's job writes: the same on every delivery, so a retry cannot store it twice. */
export const replyIdOf = (messageId: string) => deterministicId(`reply:${messageId}`);

export const now = (deps: CommandDeps) => deps.clock.now().toISOString();
