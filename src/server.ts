import { hkdfSync } from 'node:crypto';
import type { Logger as PinoLogger } from 'pino';
import type { Config } from './config.js';
import { systemClock, type Clock } from './ports/clock.js';
import { conversationIdFor } from './commands/conversations/conversationIds.js';
import type { AuthDeps, CommandDeps } from './commands/deps.js';
import { buildApp, serviceLifecycle } from './http/app.js';
import type { HttpServices } from './http/services.js';
import { adminRoutes } from './http/routes/admin.js';
import { metricsRoutes } from './http/routes/metrics.js';
import { agentRoutes } from './http/routes/agents.js';
import { apiTokenRoutes } from './http/routes/apiTokens.js';
import { teamRoutes } from './http/routes/team.js';
import { assignmentRoutes } from './http/routes/assignment.js';
import { redactionRoutes } from './http/routes/redaction.js';
import { notificationRoutes } from './http/routes/notifications.js';
import { inAppNotificationRoutes } from './http/routes/inAppNotifications.js';
import { noteRoutes } from './http/routes/notes.js';
import { createSmtpMailer } from './infrastructure/mail/smtpMailer.js';
import { authRoutes } from './http/routes/auth.js';
import { billingRoutes } from './http/routes/billing.js';
import { conversationRoutes } from './http/routes/conversations.js';
import { conversationTriageRoutes } from './http/routes/conversationTriage.js';
import { searchRoutes } from './http/routes/search.js';
import { aiBacklogRoutes } from './http/routes/aiBacklog.js';
import { integrationRoutes } from './http/routes/integrations.js';
import { knowledgeBaseRoutes } from './http/routes/knowledgeBase.js';
import { liveEventRoutes } from './http/routes/liveEvents.js';
import { startLiveEvents } from './processing/liveEvents.js';
import { llmConfigRoutes } from './http/routes/llmConfig.js';
import { webchatRoutes } from './http/routes/webchat.js';
import { pendingWrites } from './http/pendingWrites.js';
import { platformWebhookLogRoutes } from './http/routes/platformWebhookLogs.js';
import { staticFileRoutes } from './http/routes/staticFiles.js';
import { platformWebhookRoutes } from './http/routes/platformWebhooks.js';
import { conversationByPlatformRef } from './projections/conversationRefs/queries.js';
import { customerRoutes } from './http/routes/customers.js';
import { retentionRoutes } from './http/routes/retention.js';
import { publicEventRoutes } from './http/routes/publicEvents.js';
import { webhookEndpointRoutes } from './http/routes/webhookEndpoints.js';
import { webhookDeliveryRoutes } from './http/routes/webhookDeliveries.js';
import { cannedReplyRoutes } from './http/routes/cannedReplies.js';
import { supportTeamRoutes } from './http/routes/supportTeams.js';
import { knowledgeFileRoutes } from './http/routes/knowledgeFiles.js';
import { playgroundRoutes } from './http/routes/playground.js';
import { businessHoursRoutes } from './http/routes/businessHours.js';
import { slaRoutes } from './http/routes/sla.js';
import { csatRoutes } from './http/routes/csat.js';
import { actionCallRoutes } from './http/routes/actionCalls.js';
import { analyticsRoutes } from './http/routes/analytics.js';
import { replayRoutes } from './http/routes/replays.js';
import { actionRoutes } from './http/routes/actions.js';
import { createFileTextExtractor } from './infrastructure/documents/fileText.js';
import { adapterReadiness, openAdapters } from './infrastructure/adapters.js';
import type { Adapters } from './ports/adapters.js';
import { startErasureSweep } from './processing/erasures.js';
import { allProjections } from './projections/index.js';
import { createArgonHasher } from './infrastructure/auth/argonHasher.js';
import { createJwtAccessTokens } from './infrastructure/auth/jwtAccessTokens.js';
import { webAssetsDir } from './shared/runtimeLayout.js';
import { createVisitorTokens } from './infrastructure/auth/visitorTokens.js';
import { exposeMetrics } from './infrastructure/metrics/exposition.js';
import { createServiceMetrics, type MetricsJson } from './infrastructure/metrics/serviceMetrics.js';
import { checkPlatformUrl, type Resolver } from './infrastructure/net/ssrfGuard.js';
import { startKnowledgeIndexer, type KnowledgeIndexer } from './processing/knowledgeIndexer.js';
import { startEventLoopMonitor } from './processing/eventLoopMonitor.js';
import { outboundClients } from './processing/outboundClients.js';
import type { ProcessorOptions } from './processing/processor.js';
import { processorConsumer } from './processing/threadConsumer.js';
import { startProcessorThread } from './processing/processorThread.js';
import { remoteProjectionWaiter } from './processing/projectionProgress.js';
import type { PlatformClient } from './ports/platform.js';
import { webchatSubject } from './workers/replies/replyJobs.js';
import { searchPassages } from './workers/answers/answerGeneration.js';
import type { ProjectionRunner } from './processing/projectionRunner.js';
import { createEventConsumer } from './processing/eventConsumer.js';

const ERASURE_POLL_MS = 30_000;

export interface ServerOptions {
  clock?: Clock;
  /** Adapters built by the caller (tests); otherwise chosen from the configuration. */
  adapters?: Adapters;
  platform?: PlatformClient;
  /** Run reply and send workers in this process (default true). */
  workers?: boolean;
  /** Name resolution for outbound LLM calls (tests simulate a name that resolves to loopback, offline). */
  dnsResolver?: Resolver;
}

/**
 * The composition root shared by main.ts and the tests: adapters, projections, reactors, workers and
 * the HTTP app, with one stop() that shuts them down in the right order.
 */
export async function createServer(config: Config, logger: PinoLogger, options: ServerOptions = {}) {
  const adapters = options.adapters ?? (await openAdapters(config, logger));
  const clock = options.clock ?? systemClock;
  const { eventStore, readStore, bus } = adapters;
  const loop = startEventLoopMonitor();
  // This thread's Prometheus registry; a processor thread keeps its own, merged into GET /metrics.
  const metrics = createServiceMetrics({ processMetrics: true });
  metrics.watchEventLoop('api', loop);
  const { jwtKey, secretBox, requireHttps, platform, llmResolver, webhookSender, actionCaller } = outboundClients(config, logger, options);
  // The knowledge-base search index lives in memory (on its own worker thread): rebuilt from the events on every start.
  // This thread's one reader of the event log, for the knowledge index and the live updates (each event read once).
  // Small batches: a document stored before content parts existed carries up to 1 MiB in one event.
  // With the processing side in this thread, its projections and reactors read from the same consumer.
  const consumer = processingInThisThread(config)
    ? processorConsumer(eventStore, logger)
    : createEventConsumer({ eventStore, logger: logger.child({ component: 'api-event-consumer' }), batchSize: 16 });
  const knowledge = startKnowledgeIndexer({ eventStore, consumer, logger: logger.child({ component: 'knowledge-index' }) });
  // The processing side starts (on its own thread by default) while this thread builds the HTTP app, and may
  // still be starting when the server listens: a webhook accepted meanwhile is already durable, requests that
  // read their own writes wait for it (waitForPosition), and /readyz says `processor: false` until it runs.
  let processing: ProcessingSide | undefined;
  const processingStarted = startProcessingSide(config, logger, adapters, { ...options, knowledge, metrics, consumer }).then((side) => (processing = side));
  processingStarted.catch(() => {}); // the caller awaits it (server.processingStarted); not an unhandled rejection meanwhile
  const waitForPosition: ProjectionRunner['waitForPosition'] = async (position, timeoutMs) =>
    (await processingStarted).projections.waitForPosition(position, timeoutMs);
  const commands: CommandDeps = { eventStore, clock, logger: logger.child({ component: 'commands' }) };
  // Erasures are completed (keys, read models) by one sweep per API process; it also finishes, at start-up, one a restart cut short,
  // and polls for the ones the processor's retention sweep records.
  const erasureSweep = startErasureSweep({ eventStore, readStore, keys: adapters.personalKeys, projections: allProjections, logger: logger.child({ component: 'erasures' }), pollMs: ERASURE_POLL_MS });
  const auth: AuthDeps = {
    ...commands,
    hasher: createArgonHasher(),
    tokens: createJwtAccessTokens({ key: jwtKey, ttlSeconds: config.accessTokenTtlSeconds, now: () => clock.now() }),
    refreshTokenTtlMs: config.refreshTokenTtlMs,
    refreshReuseGraceMs: config.refreshReuseGraceMs,
    // Its own key, derived from the session key: rotated refresh tokens are HMACs of their predecessors.
    refreshTokenKey: Buffer.from(hkdfSync('sha256', jwtKey, '', 'messaging-agent-service:refresh-token-rotation', 32)),
  };
  const readYourWrites = async (position: bigint | null, what: string, wait: (position: bigint, timeoutMs: number) => Promise<void>) => {
    if (position === null) return;
    try {
      await wait(position, config.readYourWritesTimeoutMs);
    } catch (err) {
      logger.warn({ err, position: String(position), what }, 'read-your-writes: still behind after the wait; answering from the write itself');
    }
  };
  const knowledgeSearch = { search: knowledge.search.bind(knowledge), chunkCount: knowledge.chunkCount.bind(knowledge), calibration: knowledge.calibration.bind(knowledge) };
  const services: HttpServices = {
    config,
    commands,
    auth,
    readStore,
    secretBox,
    webhookSender,
    platform,
    // The same address policy as the platform's, checked again when each call connects.
    actionCaller,
    checkPlatformUrl: (url) => checkPlatformUrl(url, { allowPrivate: config.allowPrivatePlatformUrls, requireHttps }),
    waitForProjections: (position) => readYourWrites(position, 'read models', waitForPosition),
    waitForProjectionsOrFail: (position) => (position === null ? Promise.resolve() : waitForPosition(position, config.readYourWritesTimeoutMs)),
    llmResolver,
    knowledge: { ...knowledgeSearch, waitForPosition: (position) => readYourWrites(position, 'knowledge index', knowledge.waitForPosition.bind(knowledge)) },
    webhookMetrics: metrics.webhooks,
    replayMetrics: metrics.replays,
    erasure: { keys: adapters.personalKeys, sweep: erasureSweep },
    ...(config.smtp ? { mailer: createSmtpMailer(config.smtp) } : {}),
  };

  // Live updates for the dashboard (SSE): one processor on this thread's consumer, fanned out per company.
  const liveEvents = await startLiveEvents({ eventStore, readStore, consumer, waitForProjections: (position) => waitForPosition(position), logger: logger.child({ component: 'live-events' }) });

  // A webhook's log entry is written after its acknowledgement; this process's log reads wait for those in flight.
  const webhookLogWrites = pendingWrites();
  const app = await buildApp({
    config,
    logger,
    readiness: async () => ({ ...(await adapterReadiness(adapters)), processor: processing?.isRunning() ?? false }),
    metrics: async () => ({ eventLoop: { api: loop.snapshot(), ...(processing ? await processing.eventLoop() : {}) } }),
    features: [
      authRoutes(services),
      apiTokenRoutes(services),
      teamRoutes(services),
      assignmentRoutes(services),
      redactionRoutes(services),
      notificationRoutes(services),
      inAppNotificationRoutes(services),
      noteRoutes(services),
      billingRoutes(services),
      adminRoutes(services),
      integrationRoutes(services),
      platformWebhookRoutes(services, webhookLogWrites, {
        rateLimiter: adapters.rateLimiter,
        findConversationByRef: conversationByPlatformRef(services.readStore, async () =>
          services.waitForProjectionsOrFail(await services.commands.eventStore.headPosition()),
        ),
      }),
      platformWebhookLogRoutes(services, webhookLogWrites),
      agentRoutes(services),
      llmConfigRoutes(services),
      knowledgeBaseRoutes(services),
      knowledgeFileRoutes(services, { files: createFileTextExtractor() }),
      conversationRoutes(services),
      conversationTriageRoutes(services),
      searchRoutes(services),
      aiBacklogRoutes(services),
      customerRoutes(services),
      retentionRoutes(services),
      cannedReplyRoutes(services),
      supportTeamRoutes(services),
      publicEventRoutes(services),
      webhookEndpointRoutes(services),
      webhookDeliveryRoutes(services),
      playgroundRoutes(services, {
        searchKnowledge: searchPassages(knowledge),
        actionCaller,
      }),
      analyticsRoutes(services),
      businessHoursRoutes(services),
      slaRoutes(services),
      csatRoutes(services),
      actionCallRoutes(services),
      replayRoutes(services),
      actionRoutes(services),
      liveEventRoutes(services, liveEvents),
      webchatRoutes(services, {
        visitorTokens: createVisitorTokens({ key: jwtKey, conversationIdFor, now: () => clock.now() }),
        listenToConversation: (conversationId, handler) => bus.listen(webchatSubject(conversationId), handler),
        rateLimiter: adapters.rateLimiter,
      }),
      staticFileRoutes(webAssetsDir()),
      metricsRoutes({ token: config.metricsToken, expose: async () => exposeMetrics(metrics.registry, await (await processingStarted).metrics()) }),
    ],
  });

  return {
    app,
    adapters,
    services,
    /** Resolves once the processing side runs; rejects if it could not start (main.ts then exits). */
    processingStarted: processingStarted.then(() => undefined),
    /** Waits for the processing side's projections, wherever they run. */
    projections: remoteRunner(waitForPosition),
    knowledge,
    liveEvents,
    // Stop accepting, finish in-flight requests, stop subscriptions and workers, then close the stores.
    ...serviceLifecycle(app, config, [
      () => liveEvents.stop(),
      () => erasureSweep.stop(),
      () => processingStarted.then((side) => side.stop(), () => {}),
      () => knowledge.stop(),
      () => consumer.stop(),
      () => loop.stop(),
      () => adapters.close(),
    ]),
  };
}

export type Server = Awaited<ReturnType<typeof createServer>>;

/**
 * Where the processing side runs, by ROLE: with the HTTP server on its own worker thread (all, the default),
 * in this thread (all with PROCESSOR_THREAD=false: tests that inspect it), or in other processes (api).
 */
interface ProcessingSide {
  projections: ProjectionRunner;
  isRunning(): boolean;
  eventLoop(): Promise<Record<string, unknown>>;
  metrics(): Promise<MetricsJson[]>;
  stop(): Promise<void>;
}

async function startProcessingSide(
  config: Config,
  logger: PinoLogger,
  adapters: Adapters,
  options: ProcessorOptions & { knowledge: KnowledgeIndexer },
): Promise<ProcessingSide> {
  if (processingInThisThread(config)) {
    // Imported here: with a processor thread (the default) this thread never loads the processing side's modules.
    const { startProcessor } = await import('./processing/processor.js');
    const processor = await startProcessor(config, logger, adapters, options);
    return { projections: processor.projections, isRunning: () => true, eventLoop: async () => ({}), metrics: noRemoteMetrics, stop: () => processor.stop() };
  }
  if (config.role === 'all') {
    // Three threads, so the operating system shares the cores between read models, answers and outbound deliveries: a
    // flood that keeps the projections busy does not take the CPU the replies need (and the other way round), and the
    // deliveries' share beside the replies is bounded by WEBHOOK_THREAD_NICE (docs/fair-processing.md).
    const [projections, replies, webhooks] = await Promise.all([
      startProcessorThread(config, logger.child({ component: 'projections-thread' }), 'projections'),
      startProcessorThread(config, logger.child({ component: 'replies-thread' }), 'replies'),
      startProcessorThread(config, logger.child({ component: 'webhooks-thread' }), 'webhooks'),
    ]);
    const threads = [projections, replies, webhooks];
    return {
      projections: remoteRunner(projections.waitForPosition),
      isRunning: () => threads.every((t) => t.isRunning()),
      eventLoop: async () => {
        const [p, r, w] = await Promise.all(threads.map((t) => t.stats()));
        return { ...(p ? { projections: p.eventLoop } : {}), ...(r ? { replies: r.eventLoop } : {}), ...(w ? { webhooks: w.eventLoop } : {}) };
      },
      metrics: async () => (await Promise.all(threads.map((t) => t.metrics()))).filter((json): json is MetricsJson => json !== null),
      async stop() {
        await webhooks.stop();
        await replies.stop();
        await projections.stop();
      },
    };
  }
  // ROLE=api: processors run elsewhere and record how far the projections got.
  const waiter = remoteProjectionWaiter(adapters.readStore);
  return { projections: remoteRunner((p, t) => waiter.waitForPosition(p, t)), isRunning: () => true, eventLoop: async () => ({}), metrics: noRemoteMetrics, stop: async () => {} };
}

/** ROLE=all with PROCESSOR_THREAD=false: projections, reactors and workers run on the HTTP thread. */
const processingInThisThread = (config: Config) => config.role === 'all' && !config.processorThread;

/** The processing side in this thread (or in other processes) reports into this thread's registry (or theirs). */
const noRemoteMetrics = async (): Promise<MetricsJson[]> => [];

/** A ProjectionRunner whose projections run elsewhere: only waiting for a position is meaningful here. */
const remoteRunner = (waitForPosition: ProjectionRunner['waitForPosition']): ProjectionRunner => ({
  waitForPosition,
  status: () => [],
  stop: async () => {},
});
