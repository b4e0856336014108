import { hkdfSync } from 'node:crypto';
import { join } from 'node:path';
import type { Logger as PinoLogger } from 'pino';
import type { Config } from './config.js';
import { systemClock, type AuthDeps, type Clock, type CommandDeps } from './commands/ports.js';
import { buildApp } from './http/app.js';
import type { HttpServices } from './http/services.js';
import { adminRoutes } from './http/routes/admin.js';
import { agentRoutes } from './http/routes/agents.js';
import { apiTokenRoutes } from './http/routes/apiTokens.js';
import { authRoutes } from './http/routes/auth.js';
import { billingRoutes } from './http/routes/billing.js';
import { conversationRoutes } from './http/routes/conversations.js';
import { integrationRoutes } from './http/routes/integrations.js';
import { knowledgeBaseRoutes } from './http/routes/knowledgeBase.js';
import { liveEventRoutes, startLiveEvents } from './http/routes/liveEvents.js';
import { llmConfigRoutes } from './http/routes/llmConfig.js';
import { webchatRoutes } from './http/routes/webchat.js';
import { webhookLogRoutes } from './http/routes/webhookLogs.js';
import { staticFileRoutes } from './http/routes/staticFiles.js';
import { webhookRoutes } from './http/routes/webhooks.js';
import { openAdapters, type Adapters } from './infrastructure/adapters.js';
import { createArgonHasher } from './infrastructure/auth/argonHasher.js';
import { createJwtAccessTokens } from './infrastructure/auth/jwtAccessTokens.js';
import { createVisitorTokens } from './infrastructure/auth/visitorTokens.js';
import { createSecretBox, parseMasterKey } from './infrastructure/crypto/secretBox.js';
import { loadOrCreateKeyFile } from './infrastructure/keyFile.js';
import { createLlmResolver } from './infrastructure/llm/llmForCompany.js';
import { createPlatformClient } from './infrastructure/platform/platformClient.js';
import { checkPlatformUrl, type Resolver } from './infrastructure/net/ssrfGuard.js';
import { startKnowledgeIndexer } from './infrastructure/search/knowledgeIndexer.js';
import type { PlatformClient } from './ports/platform.js';
import { allProjections } from './projections/index.js';
import { webchatSubject } from './workers/jobs.js';
import { startReplyPipeline } from './workers/replyPipeline.js';
import { startProjections } from './projections/projectionRunner.js';
import { createEventConsumer } from './projections/eventConsumer.js';

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
  // One reader of the event log for the projections and reactors: each event is read and decoded once.
  const consumer = createEventConsumer({ eventStore, logger: logger.child({ component: 'event-consumer' }) });
  const projections = await startProjections({ eventStore, readStore, projections: allProjections, consumer, logger: logger.child({ component: 'projections' }) });
  // The knowledge-base search index lives in memory: rebuilt from the events on every start.
  const knowledge = startKnowledgeIndexer({ eventStore, logger: logger.child({ component: 'knowledge-index' }) });

  const jwtKey = config.jwtSecret ? new TextEncoder().encode(config.jwtSecret) : loadOrCreateKeyFile(join(config.dataDir, 'jwt.key'));
  const masterKey = config.masterKey ? parseMasterKey(config.masterKey) : loadOrCreateKeyFile(join(config.dataDir, 'master.key'));
  const secretBox = createSecretBox(masterKey);
  const requireHttps = config.env === 'production';
  const platform =
    options.platform ?? createPlatformClient({ allowPrivate: config.allowPrivatePlatformUrls, requireHttps, logger: logger.child({ component: 'platform' }) });
  const llmResolver = createLlmResolver({
    secretBox,
    timeoutMs: config.llmTimeoutMs,
    maxRetries: config.llmMaxRetries,
    // The same address policy as platform URLs, enforced at connect time (SSRF).
    network: { allowPrivate: config.allowPrivatePlatformUrls, requireHttps, ...(options.dnsResolver ? { resolver: options.dnsResolver } : {}) },
  });
  const commands: CommandDeps = { eventStore, clock, logger: logger.child({ component: 'commands' }) };
  const auth: AuthDeps = {
    ...commands,
    hasher: createArgonHasher(),
    tokens: createJwtAccessTokens({ key: jwtKey, ttlSeconds: config.accessTokenTtlSeconds, now: () => clock.now() }),
    refreshTokenTtlMs: config.refreshTokenTtlMs,
    refreshReuseGraceMs: config.refreshReuseGraceMs,
    // Its own key, derived from the session key: rotated refresh tokens are HMACs of their predecessors.
    refreshTokenKey: Buffer.from(hkdfSync('sha256', jwtKey, '', 'messaging-agent-service:refresh-token-rotation', 32)),
  };
  const services: HttpServices = {
    config,
    commands,
    auth,
    readStore,
    secretBox,
    platform,
    checkPlatformUrl: (url) => checkPlatformUrl(url, { allowPrivate: config.allowPrivatePlatformUrls, requireHttps }),
    waitForProjections: (position) => (position === null ? Promise.resolve() : projections.waitForPosition(position)),
    llmResolver,
    knowledge,
  };

  // Live updates for the dashboard (SSE): one event-store subscription per instance, fanned out per company.
  const liveEvents = await startLiveEvents({ eventStore, readStore, waitForProjections: (position) => projections.waitForPosition(position), logger: logger.child({ component: 'live-events' }) });

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
    },
    workers: options.workers !== false,
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

  const app = await buildApp({
    config,
    logger,
    readiness: async () => ({
      eventStore: await eventStore.headPosition().then(
        () => true,
        () => false,
      ),
      readStore: await readStore.activeGeneration().then(
        () => true,
        () => false,
      ),
      bus: bus.isConnected(),
    }),
    features: [
      authRoutes(services),
      apiTokenRoutes(services),
      billingRoutes(services),
      adminRoutes(services),
      integrationRoutes(services),
      webhookRoutes(services),
      webhookLogRoutes(services),
      agentRoutes(services),
      llmConfigRoutes(services),
      knowledgeBaseRoutes(services),
      conversationRoutes(services),
      liveEventRoutes(services, liveEvents),
      webchatRoutes(services, {
        visitorTokens: createVisitorTokens({ key: jwtKey, now: () => clock.now() }),
        listenToConversation: (conversationId, handler) => bus.listen(webchatSubject(conversationId), handler),
        rateLimiter: adapters.rateLimiter,
      }),
      staticFileRoutes(new URL('../dist/', import.meta.url).pathname),
    ],
  });

  let stopped = false;
  return {
    app,
    adapters,
    services,
    projections,
    knowledge,
    liveEvents,
    async listen(port = config.port, host = config.host) {
      return app.listen({ port, host });
    },
    /** Stop accepting, finish in-flight requests, stop subscriptions and workers, then close the stores. */
    async stop() {
      if (stopped) return;
      stopped = true;
      await app.close();
      await pipeline.stop();
      await liveEvents.stop();
      await knowledge.stop();
      await projections.stop();
      await consumer.stop();
      await adapters.close();
    },
  };
}

export type Server = Awaited<ReturnType<typeof createServer>>;
