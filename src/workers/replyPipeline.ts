import { loadAgent } from '../commands/agents/queries.js';
import { chargeUsage } from '../commands/credits/chargeUsage.js';
import { loadLlmConfig } from '../commands/llm/queries.js';
import type { CommandDeps } from '../commands/deps.js';
import type { SecretBox } from '../ports/secretBox.js';
import { conversationIdOfStream } from '../domain/conversations/decider.js';
import type { Pricing } from '../domain/credits/pricing.js';
import type { Bus } from '../ports/bus.js';
import type { EventStore, RecordedEvent } from '../ports/eventStore.js';
import type { CompanyLlmConfig } from '../domain/llm/decider.js';
import type { LlmProvider } from '../ports/llm.js';
import type { Logger } from '../ports/logger.js';
import type { JobMetrics, ReplayMetrics } from '../ports/metrics.js';
import type { PlatformClient } from '../ports/platform.js';
import type { ReadStore } from '../ports/readStore.js';
import type { EventConsumer } from '../processing/eventConsumer.js';
import { GENERATE_REPLY, SEND_MESSAGE, type GenerateReplyJob, type SendMessageJob } from './jobs.js';
import { startReactor } from './reactor.js';
import { recoverUnfinishedJobs } from './recoverJobs.js';
import { startReplyWorker, type AgentProfile } from './replyWorker.js';
import { searchPassages, type PassageSearch } from './answerGeneration.js';
import { chargePlaygroundAnswer } from './playgroundCharges.js';
import { startSendWorker } from './sendWorker.js';
import { createReplyLatency } from './replyLatency.js';
import { startReplayPipeline } from './replayPipeline.js';


export type { PassageSearch };

const REACTOR_CONCURRENCY = 64;

export interface ReplyPipelineDeps {
  commands: CommandDeps;
  readStore: ReadStore;
  bus: Bus;
  platform: PlatformClient;
  secretBox: SecretBox;
  knowledge: PassageSearch;
  llmResolver(config: CompanyLlmConfig): LlmProvider;
  pricing: Pricing;
  logger: Logger;
  settings: {
    burstWindowMs: number;
    llmRetryDelaysMs: number[];
    sendMaxAttempts: number;
    sendRetryBackoffMs: number[];
    workerConcurrency: number;
    perCompanyConcurrency: number;
    replyQueueCapacity: number;
    replyMaxDelayMs: number;
  };
  /** The process's shared event consumer (the reactors read through it); without one each reactor has its own. */
  consumer?: EventConsumer;
  /** Run reply and send workers in this process (reactors always run). */
  workers: boolean;
  /** The embedded bus loses jobs on a restart: republish unfinished ones once projections caught up. */
  recoverJobs?: { waitForProjections(): Promise<void> };
  /** Where the workers report the jobs they hold per company (the queue-depth metric). */
  jobMetrics?: JobMetrics;
  /** Replay outcomes, answers and running replay jobs. */
  replayMetrics?: ReplayMetrics;
}

/**
 * The reply pipeline, end to end:
 *   MessageReceived ──reply-jobs──▶ GENERATE_REPLY ──reply worker──▶ AgentReplied
 *   AgentReplied / OperatorMessageSent ──outbound-jobs──▶ SEND_MESSAGE ──send worker──▶ MessageDelivered | failed
 *   AgentReplied ──credit-charges──▶ ConsumeCredits (the one place a stored reply is charged)
 * Reactors are at-least-once and publish with a dedupe id derived from the event; workers are idempotent.
 */
export async function startReplyPipeline(deps: ReplyPipelineDeps): Promise<{ stop(): Promise<void> }> {
  const { commands, readStore, bus, logger } = deps;
  const { eventStore } = commands;
  // Each effect is independent and idempotent, so a batch's events are reacted to together (REACTOR_CONCURRENCY).
  const reactor = (name: string, eventTypes: string[], react: (event: RecordedEvent) => Promise<void>, checkpointIntervalMs?: number) =>
    startReactor({
      name,
      eventStore,
      readStore,
      eventTypes,
      logger: logger.child({ component: 'reactor', reactor: name }),
      react,
      concurrency: REACTOR_CONCURRENCY,
      ...(checkpointIntervalMs !== undefined ? { checkpointIntervalMs } : {}),
      ...(deps.consumer ? { consumer: deps.consumer } : {}),
    });

  const reactors = [
    await reactor('reply-jobs', ['MessageReceived'], (event) => publishReplyJob(bus, event)),
    await reactor('outbound-jobs', ['AgentReplied', 'OperatorMessageSent'], (event) => publishSendJob(bus, event)),
    // Charges save their checkpoint after every batch, as before: a crash repeats at most one batch of charges. A
    // second's worth could reach past the credit decider's window of 200 recent reply ids, where only SQLite's
    // unique event ids (not EventStoreDB's) stop a second charge (issue 21 asks for a guard every engine keeps).
    await reactor('credit-charges', ['AgentReplied'], (event) => chargeReply({ ...commands, pricing: deps.pricing }, event), 0),
    await reactor('playground-charges', ['PlaygroundAnswered'], (event) => chargePlaygroundAnswer({ ...commands, pricing: deps.pricing }, event), 0),
  ];

  const replyLatency = createReplyLatency();
  const workers = deps.workers
    ? [
        await startReplyWorker({
          ...commands,
          logger: logger.child({ component: 'reply-worker' }),
          bus,
          loadAgent: (companyId, agentId) => agentProfile(eventStore, companyId, agentId),
          loadLlm: async (companyId) => {
            const llmConfig = await loadLlmConfig(eventStore, companyId);
            return { kind: llmConfig.provider, provider: deps.llmResolver(llmConfig), model: llmConfig.model };
          },
          searchKnowledge: searchPassages(deps.knowledge),
          pricing: deps.pricing,
          burstWindowMs: deps.settings.burstWindowMs,
          llmRetryDelaysMs: deps.settings.llmRetryDelaysMs,
          concurrency: deps.settings.workerConcurrency,
          perCompanyConcurrency: deps.settings.perCompanyConcurrency,
          queueCapacity: deps.settings.replyQueueCapacity,
          maxDelayMs: deps.settings.replyMaxDelayMs,
          jobMetrics: deps.jobMetrics,
          replyLatency,
        }),
        await startSendWorker({
          ...commands,
          logger: logger.child({ component: 'send-worker' }),
          bus,
          platform: deps.platform,
          secretBox: deps.secretBox,
          maxDeliver: deps.settings.sendMaxAttempts,
          backoffMs: deps.settings.sendRetryBackoffMs,
          concurrency: deps.settings.workerConcurrency,
          queueCapacity: deps.settings.replyQueueCapacity,
          jobMetrics: deps.jobMetrics,
          replyLatency,
        }),
      ]
    : [];

  if (workers.length > 0 && deps.recoverJobs) {
    await deps.recoverJobs.waitForProjections();
    await recoverUnfinishedJobs({ readStore, bus, logger: logger.child({ component: 'recovery' }) });
  }
  // Replay evaluations: their own subject, durable and slots (replayPipeline.ts).
  const replays = await startReplayPipeline(deps);

  return {
    async stop() {
      for (const r of reactors) await r.stop();
      for (const w of workers) await w.stop();
      await replays.stop();
    },
  };
}

async function publishReplyJob(bus: Bus, event: RecordedEvent) {
  const data = event.data as { messageId: string; at?: string };
  const companyId = event.metadata.companyId;
  if (!companyId) return;
  const job: GenerateReplyJob = { conversationId: conversationIdOfStream(event.stream), messageId: data.messageId, companyId, receivedAt: data.at ?? event.createdAt };
  await bus.publish(GENERATE_REPLY, job, { dedupeId: event.id });
}

async function publishSendJob(bus: Bus, event: RecordedEvent) {
  const data = event.data as { messageId: string };
  const companyId = event.metadata.companyId;
  const job: SendMessageJob = { conversationId: conversationIdOfStream(event.stream), messageId: data.messageId, revision: String(event.revision), ...(companyId ? { companyId } : {}) };
  await bus.publish(SEND_MESSAGE, job, { dedupeId: `send:${data.messageId}` });
}

async function chargeReply(deps: CommandDeps & { pricing: Pricing }, event: RecordedEvent) {
  const reply = event.data as { messageId: string; model: string; inputTokens: number; outputTokens: number };
  const companyId = event.metadata.companyId;
  if (!companyId) return;
  await chargeUsage(deps, {
    companyId,
    conversationId: conversationIdOfStream(event.stream),
    replyId: reply.messageId,
    model: reply.model,
    inputTokens: reply.inputTokens,
    outputTokens: reply.outputTokens,
  });
}

async function agentProfile(eventStore: EventStore, companyId: string, agentId: string): Promise<AgentProfile | null> {
  const agent = await loadAgent(eventStore, companyId, agentId);
  if (!agent) return null;
  const { agentId: id, active, name, systemPrompt, model, temperature, useKnowledgeBase, handoffMessage, answerThreshold } = agent;
  return { agentId: id, companyId: agent.companyId, active, name, systemPrompt, model, temperature, useKnowledgeBase, handoffMessage, ...(answerThreshold ? { answerThreshold } : {}) };
}
