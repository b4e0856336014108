import type { CommandDeps } from '../../commands/deps.js';
import { deterministicId } from '../../commands/hashing.js';
import type { ExperimentArm } from '../../domain/agents/experiments.js';
import type { AnswerThreshold } from '../../domain/answers/evidence.js';
import type { Pricing } from '../../domain/credits/decider.js';
import type { Bus } from '../../ports/bus.js';
import type { LlmPassage, LlmProvider } from '../../ports/llm.js';
import type { JobMetrics } from '../../ports/metrics.js';
import type { ReplyLatency } from './sendWorker.js';
import type { ActionCaller } from '../../ports/actionCaller.js';
import type { SecretBox } from '../../ports/secretBox.js';
import { loadBusinessHours } from '../../commands/settings/streamReads.js';
import { DEFAULT_AGENT_AFTER_HOURS_MESSAGE } from '../../domain/agents/events.js';
import { afterHoursSentence, nextOpening } from '../../domain/company/businessHours/schedule.js';
import { loadIntegration } from '../../commands/integrations/streamReads.js';
import { handleCommand, loadState } from '../../commands/handleCommand.js';
import { conversationDecider, conversationStream, type HandoffNotice } from '../../domain/conversations/decider.js';
import type { GenerateReplyJob } from './replyJobs.js';
import type { ConversationState } from '../../domain/conversations/state.js';

/**
 * What the reply flow works with and what it decides besides the answer, shared by the reply worker, the reply's
 * generation, its actions and experiments: the dependencies (ReplyWorkerDeps), the agent and model a reply is
 * written with, what became of a job (Outcome); and the decisions: whether a handoff made now waits for business
 * hours (afterHours), handing the messages to people (handToPeople, markUnanswered), handing a conversation back
 * to the AI (handBackIfDue).
 */

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

export interface AfterHours {
  /** When people are back (ISO). */
  backAt: string;
  /** The agent's after-hours sentence with the return filled in. */
  sentence: string;
}

/**
 * Whether a handoff made now waits for the morning: null in business hours (or without any), else when
 * people are back and what the customer is told. The company stream's state is cached, so a handoff costs
 * no stream read beyond the events appended since.
 */
export async function afterHours(deps: ReplyWorkerDeps, companyId: string, agent: Pick<AgentProfile, 'afterHoursMessage'> | null): Promise<AfterHours | null> {
  const { hours, timezone } = await loadBusinessHours(deps.eventStore, companyId);
  const now = deps.clock.now();
  const back = nextOpening(hours, timezone, now);
  // Open now, or a schedule that never opens again (no return to promise).
  if (back === null || back.getTime() === now.getTime()) return null;
  return { backAt: back.toISOString(), sentence: afterHoursSentence(agent?.afterHoursMessage ?? DEFAULT_AGENT_AFTER_HOURS_MESSAGE, back, timezone) };
}

/** What an AgentReplied text may hold (events.ts). */
const MAX_REPLY_LENGTH = 65_536;

/** The handoff reply with the after-hours sentence after it. */
export const withAfterHours = (text: string, after: AfterHours) => `${text.trimEnd()}\n\n${after.sentence}`.slice(0, MAX_REPLY_LENGTH);

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
