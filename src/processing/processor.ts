import type { Logger as PinoLogger } from 'pino';
import type { Config } from '../config.js';
import { systemClock, type Clock } from '../ports/clock.js';
import type { CommandDeps } from '../commands/deps.js';
import type { Adapters } from '../ports/adapters.js';
import type { ServiceMetrics } from '../infrastructure/metrics/serviceMetrics.js';
import { allProjections } from '../projections/index.js';
import { startCustomerReplies } from '../workers/replies/replyWorker.js';
import { startReplayEvaluations } from '../workers/replays/replayEvaluations.js';
import { startWebhookDeliveries } from '../workers/outboundWebhooks/webhookDelivery.js';
import { startHandoffSummaries } from '../workers/handoffSummaries/handoffSummaries.js';
import { startNotifications, startWaitingHandoffsSweep } from '../workers/notifications/notifications.js';
import { startActionExpiry } from '../workers/actionResumes/actionExpiry.js';
import type { WorkerDeps } from './workerDeps.js';
import { startSnoozeWake } from '../workers/snoozes/snoozeWake.js';
import { startRetentionSweep } from '../workers/retention/retentionSweep.js';
import type { EventConsumer } from './eventConsumer.js';
import { startKnowledgeIndexer, type KnowledgeIndexer } from './knowledgeIndexer.js';
import { outboundClients, type OutboundOptions } from './outboundClients.js';
import { publishProjectionProgress, remoteProjectionWaiter } from './projectionProgress.js';
import { startProjections, type ProjectionRunner } from './projectionRunner.js';
import { startReactors } from './reactor.js';
import { allReactors } from './allReactors.js';
import { watchActionCallMetrics } from './actionCallMetrics.js';
import { processorConsumer } from './threadConsumer.js';
import { startLeasedDuty } from './leasedDuty.js';

/**
 * Which part of the processing side runs here. Projections only make read models; replies (reactors, the reply
 * and send workers, the knowledge index they search) make answers; webhooks delivers the outbound webhooks. On
 * their own threads the operating system shares the cores between them, so a flood that keeps the projections
 * busy cannot starve the answers, and deliveries take a bounded share beside the replies (WEBHOOK_THREAD_NICE,
 * docs/fair-processing.md). 'all' runs every part; 'replies' then leaves the deliveries to the webhooks thread.
 */
export type ProcessorPart = 'all' | 'projections' | 'replies' | 'webhooks';

export interface ProcessorOptions extends OutboundOptions {
  /** Default 'all'. */
  part?: ProcessorPart;
  clock?: Clock;
  /** Run reply and send workers (default true); reactors and projections always run. */
  workers?: boolean;
  /** A knowledge index already running in this thread, shared instead of starting a second one. */
  knowledge?: KnowledgeIndexer;
  /** The metrics registry of this thread: projection lag, LLM calls and the jobs the workers hold. */
  metrics?: ServiceMetrics;
  /** Record how far the projections got for other processes (ROLE=processor without a projections thread). */
  publishProgress?: boolean;
  /**
   * This thread's reader of the event log, when the host thread already has one (made by processorConsumer) for
   * its own processors: every processor of the thread then reads each event once. Stopped by its owner.
   */
  consumer?: EventConsumer;
}

export interface Processor {
  projections: ProjectionRunner;
  /** Null on a thread that runs only the projections. */
  knowledge: KnowledgeIndexer | null;
  stop(): Promise<void>;
}

/**
 * The processing side: projections, reactors, the reply and send workers and the knowledge index they read.
 * It runs in the HTTP process (ROLE=all, PROCESSOR_THREAD=false), on its own worker thread (ROLE=all, the
 * default), or as its own process (ROLE=processor), always on adapters of its own thread.
 *
 * The processors of the thread's one event consumer, by part:
 *   projections: every projection of `allProjections` (src/projections/index.ts), through the projection runner
 *   replies:     every reactor of `allReactors` (./allReactors.ts) and the knowledge indexer; then the bus
 *                workers their jobs feed (customer replies, replay evaluations)
 * The HTTP thread adds its own (server.ts): the knowledge indexer its routes search, and the live events.
 */
export async function startProcessor(config: Config, logger: PinoLogger, adapters: Adapters, options: ProcessorOptions = {}): Promise<Processor> {
  const { eventStore, readStore } = adapters;
  const part = options.part ?? 'all';
  if (part === 'webhooks') return startDeliveries(config, logger, adapters, options);
  const gatherMs = part === 'projections' ? config.projectionsGatherMs : 0;
  const ownConsumer = options.consumer ? null : processorConsumer(eventStore, logger, { gatherMs });
  const consumer = options.consumer ?? ownConsumer!;
  const stops: (() => Promise<void>)[] = [];
  let projections: ProjectionRunner;
  if (part === 'replies') {
    // The projections run on another thread: it records how far they got (publishProjectionProgress).
    const waiter = remoteProjectionWaiter(readStore);
    projections = { waitForPosition: (position, timeoutMs) => waiter.waitForPosition(position, timeoutMs), status: () => [], stop: async () => {} };
  } else {
    projections = await leasedProjections(config, logger, adapters, {
      consumer,
      publishProgress: part === 'projections' || options.publishProgress === true,
      metrics: options.metrics,
      // Held batches only where the consumer is the projections' own: elsewhere it would hold the reactors too.
      gatherMs: ownConsumer ? gatherMs : 0,
    });
    options.metrics?.watchProjections(projections, eventStore);
    stops.push(() => projections.stop());
  }
  if (part === 'projections') return { projections, knowledge: null, stop: () => stopAll(stops, ownConsumer) };
  const replies = await startReplies(config, logger, adapters, { ...options, consumer, projections });
  stops.unshift(replies.stop);
  return { projections, knowledge: replies.knowledge, stop: () => stopAll(stops, ownConsumer) };
}

/**
 * The projections, run only while this instance holds the 'projections' lease (several processors on one
 * PostgreSQL: one runs them, the others stand by). The runner it returns waits on the local projections while it
 * holds them, else on the progress the holder records in the read store.
 */
async function leasedProjections(
  config: Config,
  logger: PinoLogger,
  adapters: Adapters,
  options: { consumer: EventConsumer; publishProgress: boolean; metrics: ServiceMetrics | undefined; gatherMs: number },
): Promise<ProjectionRunner> {
  const { eventStore, readStore } = adapters;
  const remote = remoteProjectionWaiter(readStore);
  let local: ProjectionRunner | null = null;
  const duty = await startLeasedDuty({
    leases: adapters.leases,
    name: 'projections',
    retryMs: config.leases.retryMs,
    logger: logger.child({ component: 'projections' }),
    async start() {
      const runner = await startProjections({
        eventStore,
        readStore,
        projections: allProjections,
        consumer: options.consumer,
        gatherMs: options.gatherMs,
        logger: logger.child({ component: 'projections' }),
      });
      const progress = options.publishProgress
        ? publishProjectionProgress({ eventStore, readStore, projections: runner, logger: logger.child({ component: 'projection-progress' }) })
        : null;
      local = runner;
      return {
        async stop() {
          local = null;
          await progress?.stop();
          await runner.stop();
        },
      };
    },
  });
  options.metrics?.watchLease('projections', duty);
  return {
    waitForPosition: (position, timeoutMs) => (local ? local.waitForPosition(position, timeoutMs) : remote.waitForPosition(position, timeoutMs)),
    status: () => local?.status() ?? [],
    stop: () => duty.stop(),
  };
}

async function stopAll(stops: (() => Promise<void>)[], consumer: EventConsumer | null) {
  for (const stop of stops) await stop();
  await consumer?.stop();
}

/** Reactors, the reply, send and replay workers, and the knowledge index they search. */
async function startReplies(
  config: Config,
  logger: PinoLogger,
  adapters: Adapters,
  options: ProcessorOptions & { consumer: EventConsumer; projections: ProjectionRunner },
): Promise<{ knowledge: KnowledgeIndexer; stop(): Promise<void> }> {
  const { eventStore, readStore, bus } = adapters;
  const { consumer } = options;
  const clock = options.clock ?? systemClock;
  const commands: CommandDeps = { eventStore, clock, logger: logger.child({ component: 'commands' }) };
  const ownKnowledge = !options.knowledge;
  // The knowledge-base search index lives in memory: rebuilt from the events on every start.
  const knowledge = options.knowledge ?? startKnowledgeIndexer({ eventStore, consumer, logger: logger.child({ component: 'knowledge-index' }) });
  const waitForProjections = (position: bigint) => options.projections.waitForPosition(position, 60_000);
  // Reactors and timed sweeps run on one instance at a time (their leases); the bus workers on every one.
  const lease = async (name: string, start: () => Promise<{ stop(): Promise<void> }>) => {
    const duty = await startLeasedDuty({ leases: adapters.leases, name, start, retryMs: config.leases.retryMs, logger: logger.child({ component: name }) });
    options.metrics?.watchLease(name, duty);
    return duty;
  };
  const reactors = await lease('reactors', () => startReactors(allReactors, { eventStore, readStore, consumer, logger, ctx: { commands, bus, pricing: config.pricing, readStore, waitForProjections } }));
  const stops: (() => Promise<void>)[] = [() => reactors.stop()];
  if (options.metrics) {
    const actionCalls = { consumer, eventStore, readStore, metrics: options.metrics.actionCalls, logger: logger.child({ component: 'action-call-metrics' }) };
    stops.push(await watchActionCallMetrics(actionCalls));
  }
  if (options.workers !== false) {
    const deps = workerDeps(config, logger, adapters, { ...options, commands, knowledge });
    const replies = await startCustomerReplies(deps);
    stops.push(() => replies.stop());
    // Replay evaluations: their own subject, durable and slots.
    const replays = await startReplayEvaluations(deps);
    stops.push(() => replays.stop());
    if (options.part !== 'replies') {
      const webhooks = await deliveries(config, logger, adapters, { ...options, commands });
      stops.unshift(() => webhooks.stop());
    }
    // Handoff summaries: their own subject and slots, off the customers' reply path.
    const summaries = await startHandoffSummaries(deps);
    stops.push(() => summaries.stop());
    // Email notifications (assignment, waiting handoffs), when SMTP is configured.
    const notificationDeps = deps.notifications ? { ...commands, ...deps.notifications, bus, readStore, logger: logger.child({ component: 'notifications' }) } : null;
    if (notificationDeps) {
      const notifications = await startNotifications(notificationDeps);
      stops.push(() => notifications.stop());
    }
    // The timed sweeps: action calls that wait for a yes or an approval end on time (deadlines from the
    // pending-calls read model), and handoffs waiting too long get their emails.
    const sweeps = await lease('sweeps', async () => {
      const expiry = startActionExpiry({ ...commands, readStore, sweepIntervalMs: config.actionExpirySweepIntervalMs, logger: logger.child({ component: 'action-expiry' }) });
      const waiting = notificationDeps ? startWaitingHandoffsSweep(notificationDeps) : null;
      // Snoozed conversations come back on time (on the action-expiry sweep's interval: both are deadlines in a read model).
      const snoozes = startSnoozeWake({ ...commands, readStore, sweepIntervalMs: config.actionExpirySweepIntervalMs, logger: logger.child({ component: 'snooze-wake' }) });
      // Retention periods are days long: a pass a minute at most is plenty (the API's erasure sweep polls for
      // the CustomerErased events it records and purges the read models).
      const retentionInterval = Math.max(config.actionExpirySweepIntervalMs, 60_000);
      const retention = startRetentionSweep({ ...commands, readStore, personalKeys: adapters.personalKeys, sweepIntervalMs: retentionInterval, logger: logger.child({ component: 'retention' }) });
      return {
        async stop() {
          await retention.stop();
          await snoozes.stop();
          await waiting?.stop();
          await expiry.stop();
        },
      };
    });
    stops.push(() => sweeps.stop());
  }
  return {
    knowledge,
    async stop() {
      for (const stop of stops) await stop();
      if (ownKnowledge) await knowledge.stop();
    },
  };
}

/** Outbound webhook deliveries. The bus: processors meet on it and share the endpoints (each one served by one of them). */
function deliveries(config: Config, logger: PinoLogger, adapters: Adapters, options: ProcessorOptions & { commands: CommandDeps }) {
  const outbound = outboundClients(config, logger, options);
  return startWebhookDeliveries({
    commands: options.commands,
    readStore: adapters.readStore,
    bus: adapters.bus,
    secretBox: outbound.secretBox,
    sender: outbound.webhookSender,
    settings: config.webhooks,
    logger: logger.child({ component: 'webhook-delivery' }),
    ...(options.metrics?.webhookDeliveries ? { metrics: options.metrics.webhookDeliveries } : {}),
  });
}

/** The webhooks part alone (its own thread): deliveries, which read the read models and append, and need no reader of the log. */
async function startDeliveries(config: Config, logger: PinoLogger, adapters: Adapters, options: ProcessorOptions): Promise<Processor> {
  const commands: CommandDeps = { eventStore: adapters.eventStore, clock: options.clock ?? systemClock, logger: logger.child({ component: 'commands' }) };
  const webhooks = await deliveries(config, logger, adapters, { ...options, commands });
  const waiter = remoteProjectionWaiter(adapters.readStore);
  const projections: ProjectionRunner = { waitForPosition: (position, timeoutMs) => waiter.waitForPosition(position, timeoutMs), status: () => [], stop: async () => {} };
  return { projections, knowledge: null, stop: () => webhooks.stop() };
}

/** What the bus workers need: outbound clients (LLM, platform), settings, metrics, and job recovery on the embedded bus. */
function workerDeps(
  config: Config,
  logger: PinoLogger,
  adapters: Adapters,
  options: ProcessorOptions & { projections: ProjectionRunner; commands: CommandDeps; knowledge: KnowledgeIndexer },
): WorkerDeps {
  const { eventStore, readStore, bus } = adapters;
  const { projections } = options;
  const outbound = outboundClients(config, logger, options);
  const llmResolver = options.metrics ? options.metrics.instrumentLlm(outbound.llmResolver) : outbound.llmResolver;
  return {
    commands: options.commands,
    readStore,
    bus,
    platform: outbound.platform,
    secretBox: outbound.secretBox,
    knowledge: options.knowledge,
    llmResolver,
    actionCaller: outbound.actionCaller,
    pricing: config.pricing,
    logger,
    settings: {
      burstWindowMs: config.replyBurstWindowMs,
      llmRetryDelaysMs: config.llmRetryDelaysMs,
      sendMaxAttempts: config.sendMaxAttempts,
      sendRetryBackoffMs: config.sendRetryBackoffMs,
      workerConcurrency: config.workerConcurrency,
      perCompanyConcurrency: config.workerCompanyConcurrency,
      replyQueueCapacity: config.replyQueueCapacity,
      replyMaxDelayMs: config.replyMaxDelayMs,
    },
    jobMetrics: options.metrics?.jobs,
    replayMetrics: options.metrics?.replays,
    ...(outbound.mailer
      ? { notifications: { mailer: outbound.mailer, dashboardUrl: config.dashboardUrl ?? config.publicBaseUrl, sweepIntervalMs: config.notificationSweepIntervalMs } }
      : {}),
    ...(adapters.engines.bus === 'in-process'
      ? {
          recoverJobs: {
            waitForProjections: async () => {
              const head = await eventStore.headPosition();
              if (head !== null) await projections.waitForPosition(head, 60_000);
            },
          },
        }
      : {}),
  };
}
