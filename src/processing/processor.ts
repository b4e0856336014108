import type { Logger as PinoLogger } from 'pino';
import type { Config } from '../config.js';
import { systemClock, type Clock } from '../ports/clock.js';
import type { CommandDeps } from '../commands/deps.js';
import type { Adapters } from '../infrastructure/adapters.js';
import type { ServiceMetrics } from '../infrastructure/metrics/serviceMetrics.js';
import { startKnowledgeIndexer, type KnowledgeIndexer } from '../infrastructure/search/knowledgeIndexer.js';
import { createEventConsumer } from '../projections/eventConsumer.js';
import { allProjections } from '../projections/index.js';
import { startProjections, type ProjectionRunner } from '../projections/projectionRunner.js';
import { startReplyPipeline } from '../workers/replyPipeline.js';
import { startCustomerProfileReactor } from '../workers/customerProfiles.js';
import { outboundClients, type OutboundOptions } from './outboundClients.js';

export interface ProcessorOptions extends OutboundOptions {
  clock?: Clock;
  /** Run reply and send workers (default true); reactors and projections always run. */
  workers?: boolean;
  /** A knowledge index already running in this thread, shared instead of starting a second one. */
  knowledge?: KnowledgeIndexer;
  /** The metrics registry of this thread: projection lag, LLM calls and the jobs the workers hold. */
  metrics?: ServiceMetrics;
}

export interface Processor {
  projections: ProjectionRunner;
  knowledge: KnowledgeIndexer;
  stop(): Promise<void>;
}

/**
 * The processing side: projections, reactors, the reply and send workers and the knowledge index they read.
 * It runs in the HTTP process (ROLE=all, PROCESSOR_THREAD=false), on its own worker thread (ROLE=all, the
 * default), or as its own process (ROLE=processor), always on adapters of its own thread.
 */
export async function startProcessor(config: Config, logger: PinoLogger, adapters: Adapters, options: ProcessorOptions = {}): Promise<Processor> {
  const { eventStore, readStore, bus } = adapters;
  const clock = options.clock ?? systemClock;
  const outbound = outboundClients(config, logger, options);
  const { secretBox, platform } = outbound;
  const llmResolver = options.metrics ? options.metrics.instrumentLlm(outbound.llmResolver) : outbound.llmResolver;
  const commands: CommandDeps = { eventStore, clock, logger: logger.child({ component: 'commands' }) };
  // One reader of the event log for the projections and reactors: each event is read and decoded once.
  const consumer = createEventConsumer({ eventStore, logger: logger.child({ component: 'event-consumer' }) });
  const projections = await startProjections({ eventStore, readStore, projections: allProjections, consumer, logger: logger.child({ component: 'projections' }) });
  options.metrics?.watchProjections(projections, eventStore);
  const ownKnowledge = !options.knowledge;
  // The knowledge-base search index lives in memory: rebuilt from the events on every start.
  const knowledge = options.knowledge ?? startKnowledgeIndexer({ eventStore, consumer, logger: logger.child({ component: 'knowledge-index' }) });

  const pipeline = await startReplyPipeline({
    commands,
    consumer,
    readStore,
    bus,
    platform,
    secretBox,
    knowledge,
    llmResolver,
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
    workers: options.workers !== false,
    jobMetrics: options.metrics?.jobs,
    replayMetrics: options.metrics?.replays,
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
  });

  const customerProfiles = await startCustomerProfileReactor({ commands, readStore, consumer });

  return {
    projections,
    knowledge,
    async stop() {
      await customerProfiles.stop();
      await pipeline.stop();
      if (ownKnowledge) await knowledge.stop();
      await projections.stop();
      await consumer.stop();
    },
  };
}
