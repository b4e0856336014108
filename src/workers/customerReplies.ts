import { loadAgent } from '../commands/agents/queries.js';
import { loadLlmConfig } from '../commands/llm/queries.js';
import { DEFAULT_AGENT_AFTER_HOURS_MESSAGE, type AgentConfig } from '../domain/agents/events.js';
import type { EventStore } from '../ports/eventStore.js';
import type { BusSubscription } from '../ports/bus.js';
import { recoverUnfinishedJobs } from './recoverJobs.js';
import type { AgentProfile, Behaviour, CompanyLlm, ReplyWorkerDeps } from './replyDeps.js';
import { startActionResumes } from './actionResume.js';
import { startReplyWorker } from './replyWorker.js';
import { searchPassages } from './answerGeneration.js';
import { startSendWorker } from './sendWorker.js';
import { createReplyLatency } from './replyLatency.js';
import type { WorkerDeps } from './workerDeps.js';

/**
 * The workers that answer customers, fed by the reactors' jobs (src/processing/reactors):
 *   GENERATE_REPLY ──reply worker──▶ AgentReplied
 *   SEND_MESSAGE ──send worker──▶ MessageDelivered | failed
 * Both are idempotent, so a redelivered job is a no-op. With the embedded bus, jobs lost on a restart are
 * published again once the projections have caught up.
 */
export async function startCustomerReplies(deps: WorkerDeps): Promise<{ stop(): Promise<void> }> {
  const { commands, bus, logger, settings } = deps;
  const replyLatency = createReplyLatency();
  const replyDeps: ReplyWorkerDeps = {
      ...commands,
      logger: logger.child({ component: 'reply-worker' }),
      bus,
      loadAgent: (companyId, agentId) => agentProfile(commands.eventStore, companyId, agentId),
      loadLlm: companyLlm(deps),
      searchKnowledge: searchPassages(deps.knowledge),
      pricing: deps.pricing,
      burstWindowMs: settings.burstWindowMs,
      llmRetryDelaysMs: settings.llmRetryDelaysMs,
      concurrency: settings.workerConcurrency,
      perCompanyConcurrency: settings.perCompanyConcurrency,
      queueCapacity: settings.replyQueueCapacity,
      maxDelayMs: settings.replyMaxDelayMs,
      jobMetrics: deps.jobMetrics,
      replyLatency,
      ...(deps.actionCaller ? { actions: { caller: deps.actionCaller, secretBox: deps.secretBox } } : {}),
  };
  const workers: BusSubscription[] = [
    await startReplyWorker(replyDeps),
    // Approve calls a teammate decided: made, and the customer told, in their own slots.
    await startActionResumes({ ...replyDeps, logger: logger.child({ component: 'action-resumes' }) }),
    await startSendWorker({
      ...commands,
      logger: logger.child({ component: 'send-worker' }),
      bus,
      platform: deps.platform,
      secretBox: deps.secretBox,
      maxDeliver: settings.sendMaxAttempts,
      backoffMs: settings.sendRetryBackoffMs,
      concurrency: settings.workerConcurrency,
      queueCapacity: settings.replyQueueCapacity,
      jobMetrics: deps.jobMetrics,
      replyLatency,
    }),
  ];
  if (deps.recoverJobs) {
    await deps.recoverJobs.waitForProjections();
    await recoverUnfinishedJobs({ readStore: deps.readStore, bus, logger: logger.child({ component: 'recovery' }) });
  }
  return {
    async stop() {
      for (const w of workers) await w.stop();
    },
  };
}

/** The company's configured language model, as the workers call it. */
export const companyLlm =
  (deps: Pick<WorkerDeps, 'commands' | 'llmResolver'>) =>
  async (companyId: string): Promise<CompanyLlm> => {
    const llmConfig = await loadLlmConfig(deps.commands.eventStore, companyId);
    return { kind: llmConfig.provider, provider: deps.llmResolver(llmConfig), model: llmConfig.model };
  };

async function agentProfile(eventStore: EventStore, companyId: string, agentId: string): Promise<AgentProfile | null> {
  const agent = await loadAgent(eventStore, companyId, agentId);
  if (!agent) return null;
  const experiment = agent.experiment;
  return {
    agentId: agent.agentId,
    companyId: agent.companyId,
    active: agent.active,
    name: agent.name,
    ...behaviourOf(agent, agent.publishedVersion),
    ...(experiment
      ? {
          experiment: {
            experimentId: experiment.experimentId,
            holdout: experiment.holdout,
            arms: experiment.arms.map(({ arm, share, version, config }) => ({ arm, share, behaviour: behaviourOf(config, version) })),
          },
        }
      : {}),
  };
}

/** What a version's configuration makes the agent answer with, recorded as `version` on every answer. */
function behaviourOf(config: AgentConfig, version: number): Behaviour {
  const { systemPrompt, model, temperature, useKnowledgeBase, handoffMessage, answerThreshold, generalAnswers, handBackAfterMinutes } = config;
  return {
    systemPrompt,
    model,
    temperature,
    useKnowledgeBase,
    handoffMessage,
    afterHoursMessage: config.afterHoursMessage ?? DEFAULT_AGENT_AFTER_HOURS_MESSAGE,
    ...(answerThreshold ? { answerThreshold } : {}),
    ...(generalAnswers ? { generalAnswers } : {}),
    ...(handBackAfterMinutes ? { handBackAfterMinutes } : {}),
    ...(config.actionIds?.length ? { actionIds: config.actionIds } : {}),
    version,
  };
}
