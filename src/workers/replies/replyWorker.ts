import { conversationDecider, conversationStream } from '../../domain/conversations/decider.js';
import { loadState } from '../../commands/handleCommand.js';
import type { BusSubscription } from '../../ports/bus.js';
import { noopJobMetrics } from '../../ports/metrics.js';
import { createFairScheduler, type FairScheduler } from '../../shared/fairness/fairScheduler.js';
import { GENERATE_REPLY, generateReplyJob, type GenerateReplyJob } from './replyJobs.js';
import { LATER_MESSAGE, replyIdOf, type Outcome, type ReplyWorkerDeps, handToPeople, markUnanswered, type AgentProfile, type Behaviour, type CompanyLlm } from './replyDecisions.js';
import { generateReply, typingIndicator, type TypingIndicator } from './replyGeneration.js';
import { loadAgent } from '../../commands/agents/streamReads.js';
import { loadLlmConfig } from '../../commands/llm/streamReads.js';
import { DEFAULT_AGENT_AFTER_HOURS_MESSAGE, type AgentConfig } from '../../domain/agents/events.js';
import type { EventStore } from '../../ports/eventStore.js';
import { recoverUnfinishedJobs } from './recoverJobs.js';
import { startActionResumes } from '../actionResumes/actionResume.js';
import { searchPassages } from '../answers/answerGeneration.js';
import { startSendWorker, createReplyLatency } from './sendWorker.js';
import type { WorkerDeps } from '../../processing/workerDeps.js';
import { inSpan, SpanKind, withActiveSpan, type Span } from '../../ports/tracing.js';
import { jobAttributes } from '../../processing/jobAttributes.js';

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

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What the "Needs human" queue shows for messages the AI could not get to in time. */
export const AI_BACKLOG = 'AI backlog';

export interface ReplyWorker extends BusSubscription {
  /** Reply jobs waiting and running in this process, per company. */
  scheduler: FairScheduler;
}

const DEFAULT_MAX_DELAY_MS = 300_000;

export async function startReplyWorker(deps: ReplyWorkerDeps): Promise<ReplyWorker> {
  const maxDeliver = deps.maxDeliver ?? 5;
  const concurrency = deps.concurrency ?? 8;
  const capacity = deps.queueCapacity ?? 10_000;
  const maxDelayMs = deps.maxDelayMs ?? DEFAULT_MAX_DELAY_MS;
  const scheduler = createFairScheduler({
    slots: concurrency,
    perCompany: deps.perCompanyConcurrency ?? Math.max(1, Math.floor((concurrency * 3) / 4)),
    capacity,
    maxDelayMs,
    supersede: true,
    now: () => deps.clock.now().getTime(),
  });
  const metrics = deps.jobMetrics ?? noopJobMetrics;
  metrics.watchBacklog('reply', () => scheduler.backlog());
  const subscription = await deps.bus.subscribe<GenerateReplyJob>(
    GENERATE_REPLY,
    // The bus hands over every job it holds at once, so the order in which they are answered is the scheduler's,
    // per company and conversation in turn, never the bus's arrival order. Besides the queue and the running
    // jobs, the handlers in flight hold jobs in their burst window and jobs being handed to people; the bus
    // must never stop delivering while they do, or a quieter company's job would wait in its FIFO again.
    { durable: 'reply-generator', concurrency: 2 * capacity + concurrency, maxDeliver, backoffMs: deps.backoffMs ?? [1000, 5000, 15000] },
    async (message) => {
      const job = generateReplyJob.parse(message.data);
      // The message's trace (from the webhook's span, carried by the job) goes on here, in this thread or process.
      await inSpan('reply', { kind: SpanKind.CONSUMER, traceparent: job.traceparent, attributes: jobAttributes(job, message.deliveryCount) }, (span) => handleReplyJob(job, message.deliveryCount, span));
    },
  );

  async function handleReplyJob(job: GenerateReplyJob, deliveryCount: number, span: Span): Promise<void> {
    const tracker = metrics.jobStarted('reply');
    tracker.waiting(job.companyId);
    // From the moment the job takes the message: the burst wait, the queue and a slow model are all "typing".
    const typing = typingIndicator(deps, job);
    try {
      const receivedAt = await burstWait(deps, job, typing);
      span.addEvent('burst window passed');
      let outcome: Outcome = { result: 'skipped', reason: LATER_MESSAGE };
      const turn = await scheduler.submit({
        companyId: job.companyId,
        lane: job.conversationId,
        since: receivedAt,
        // The scheduler starts a turn from whichever job freed the slot: the span is set again, so the reply's
        // events and model call join this message's trace.
        run: (waitingSince) =>
          withActiveSpan(span, async () => {
            span.addEvent('turn started');
            tracker.running(job.companyId);
            outcome = await generateReply(deps, job, typing);
            if (outcome.result === 'replied') deps.replyLatency?.replied(replyIdOf(job.messageId), waitingSince);
          }),
      });
      if (turn === 'shed-full' || turn === 'shed-late') {
        if (typing.started) await typing.stop();
        const why = turn === 'shed-full' ? `${capacity} conversations were already waiting for an answer` : `no answer within ${Math.round(maxDelayMs / 1000)} s`;
        outcome = await handToPeople(deps, job, `${AI_BACKLOG}: ${why}`);
      }
      metrics.replyFinished(outcome.result);
      span.setAttribute('mas.reply.result', outcome.result);
      deps.logger.info({ ...job, ...outcome, delivery: deliveryCount }, 'reply job done');
    } catch (err) {
      if (deliveryCount < maxDeliver) throw err;
      metrics.replyFinished('failed');
      // Failing for good: the customer must not wait on a reply that will never come.
      deps.logger.error({ ...job, err, delivery: deliveryCount }, 'reply job failed for good: messages marked unanswered');
      // The error's text (a store path, an address) stays in the log line above; the team reads plain words.
      await markUnanswered(deps, job, 'The AI could not answer because of an error in the service (see its log)', true);
    } finally {
      tracker.done();
    }
  }
  return { scheduler, stop: () => subscription.stop() };
}


/**
 * Messages closer together than the burst window are answered once, together: a job waits (holding no slot)
 * until its message's window has passed. Returns when the message arrived, which the queue's order and its
 * maximum delay count from.
 */
async function burstWait(deps: ReplyWorkerDeps, job: GenerateReplyJob, typing: TypingIndicator): Promise<number> {
  // The conversation's state is not held while this job sleeps: thousands of jobs may wait at once.
  const receivedAt = await startWaiting(deps, job, typing);
  const wait = receivedAt + deps.burstWindowMs - deps.clock.now().getTime();
  if (wait > 0) await sleep(wait);
  return receivedAt;
}

/** Starts the typing indicator when the message still waits; when the message was received. */
async function startWaiting(deps: ReplyWorkerDeps, job: GenerateReplyJob, typing: TypingIndicator): Promise<number> {
  const { state } = await loadState(deps.eventStore, conversationStream(job.conversationId), conversationDecider);
  if (state.unanswered.includes(job.messageId)) await typing.start(state);
  const receivedAt = job.receivedAt ? Date.parse(job.receivedAt) : Number.NaN;
  if (!Number.isNaN(receivedAt)) return receivedAt;
  // A job published before jobs carried the time: its conversation knows it.
  return state.lastCustomerMessageAt ? Date.parse(state.lastCustomerMessageAt) : deps.clock.now().getTime();
}
