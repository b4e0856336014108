import { join } from 'node:path';
import type { Logger as PinoLogger } from 'pino';
import type { Config } from './config.js';
import { loadAgent } from './commands/agents/agents.js';
import { chargeUsage } from './commands/credits/chargeUsage.js';
import { loadLlmConfig } from './commands/llm/configureLlm.js';
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
import { eventStoreReady } from './infrastructure/storeHealth.js';
import { createVisitorTokens } from './infrastructure/auth/visitorTokens.js';
import { createSecretBox, parseMasterKey } from './infrastructure/crypto/secretBox.js';
import { loadOrCreateKeyFile } from './infrastructure/keyFile.js';
import { createLlmResolver } from './infrastructure/llm/llmForCompany.js';
import { createPlatformClient } from './infrastructure/platform/platformClient.js';
import { checkPlatformUrl } from './infrastructure/platform/ssrfGuard.js';
import { createKnowledgeIndex } from './infrastructure/search/knowledgeIndex.js';
import { startKnowledgeIndexer } from './infrastructure/search/knowledgeIndexer.js';
import type { PlatformClient } from './ports/platform.js';
import { allProjections } from './projections/index.js';
import { startProjections } from './projections/projectionRunner.js';
import { GENERATE_REPLY, SEND_MESSAGE, webchatSubject } from './workers/jobs.js';
import { startReactor } from './workers/reactor.js';
import { recoverUnfinishedJobs } from './workers/recoverJobs.js';
import { startReplyWorker } from './workers/replyWorker.js';
import { startSendWorker } from './workers/sendWorker.js';

export interface ServerOptions {
  clock?: Clock;
  /** Adapters built by the caller (tests); otherwise chosen from the configuration. */
  adapters?: Adapters;
  platform?: PlatformClient;
  /** Run reply and send workers in this process (default true). */
  workers?: boolean;
}

/**
 * The composition root shared by main.ts and the tests: adapters, projections, reactors, workers and
 * the HTTP app, with one stop() that shuts them down in the right order.
 */
export async function createServer(config: Config, logger: PinoLogger, options: ServerOptions = {}) {
  const adapters = options.adapters ?? (await openAdapters(config, logger));
  const clock = options.clock ?? systemClock;
  const { eventStore, readStore, bus } = adapters;
  const projections = await startProjections({ eventStore, readStore, projections: allProjections, logger: logger.child({ component: 'projections' }) });
  // The knowledge-base search index lives in memory: rebuilt from the events on every start.
  const knowledge = startKnowledgeIndexer({ eventStore, index: createKnowledgeIndex(), logger: logger.child({ component: 'knowledge-index' }) });

  const jwtKey = config.jwtSecret ? new TextEncoder().encode(config.jwtSecret) : loadOrCreateKeyFile(join(config.dataDir, 'jwt.key'));
  const masterKey = config.masterKey ? parseMasterKey(config.masterKey) : loadOrCreateKeyFile(join(config.dataDir, 'master.key'));
  const secretBox = createSecretBox(masterKey);
  const requireHttps = config.env === 'production';
  const platform =
    options.platform ?? createPlatformClient({ allowPrivate: config.allowPrivatePlatformUrls, requireHttps, logger: logger.child({ component: 'platform' }) });
  const llmResolver = createLlmResolver({ secretBox, timeoutMs: config.llmTimeoutMs, maxRetries: config.llmMaxRetries });
  const commands: CommandDeps = { eventStore, clock, logger: logger.child({ component: 'commands' }) };
  const auth: AuthDeps = {
    ...commands,
    hasher: createArgonHasher(),
    tokens: createJwtAccessTokens({ key: jwtKey, ttlSeconds: config.accessTokenTtlSeconds, now: () => clock.now() }),
    superadminEmails: config.superadminEmails,
    refreshTokenTtlMs: config.refreshTokenTtlMs,
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

  // Reactors turn stored events into bus jobs; several instances may run them: the bus dedupes by event id.
  const reactors = [
    await startReactor({
      name: 'reply-jobs',
      eventStore,
      readStore,
      eventTypes: ['MessageReceived'],
      logger: logger.child({ component: 'reactor', reactor: 'reply-jobs' }),
      react: async (event) => {
        const data = event.data as { messageId: string };
        const companyId = event.metadata.companyId;
        if (!companyId) return;
        await bus.publish(GENERATE_REPLY, { conversationId: event.stream.slice('conversation-'.length), messageId: data.messageId, companyId }, { dedupeId: event.id });
      },
    }),
    await startReactor({
      name: 'outbound-jobs',
      eventStore,
      readStore,
      eventTypes: ['AgentReplied', 'OperatorMessageSent'],
      logger: logger.child({ component: 'reactor', reactor: 'outbound-jobs' }),
      react: async (event) => {
        const data = event.data as { messageId: string };
        await bus.publish(SEND_MESSAGE, { conversationId: event.stream.slice('conversation-'.length), messageId: data.messageId }, { dedupeId: `send:${data.messageId}` });
      },
    }),
  ];

  reactors.push(
    await startReactor({
      name: 'credit-charges',
      eventStore,
      readStore,
      eventTypes: ['AgentReplied'],
      logger: logger.child({ component: 'reactor', reactor: 'credit-charges' }),
      react: async (event) => {
        const reply = event.data as { messageId: string; model: string; inputTokens: number; outputTokens: number };
        const companyId = event.metadata.companyId;
        if (!companyId) return;
        await chargeUsage(
          { ...commands, pricing: config.pricing },
          { companyId, conversationId: event.stream.slice('conversation-'.length), replyId: reply.messageId, model: reply.model, inputTokens: reply.inputTokens, outputTokens: reply.outputTokens },
        );
      },
    }),
  );

  const workers =
    options.workers === false
      ? []
      : [
          await startReplyWorker({
            ...commands,
            logger: logger.child({ component: 'reply-worker' }),
            bus,
            loadAgent: async (companyId, agentId) => {
              const agent = await loadAgent(eventStore, companyId, agentId);
              return agent
                ? {
                    agentId: agent.agentId,
                    companyId: agent.companyId,
                    active: agent.active,
                    name: agent.name,
                    systemPrompt: agent.systemPrompt,
                    model: agent.model,
                    temperature: agent.temperature,
                    useKnowledgeBase: agent.useKnowledgeBase,
                    handoffMessage: agent.handoffMessage,
                  }
                : null;
            },
            loadLlm: async (companyId) => {
              const llmConfig = await loadLlmConfig(eventStore, companyId);
              return { kind: llmConfig.provider, provider: llmResolver(llmConfig), model: llmConfig.model };
            },
            searchKnowledge: async (companyId, query, limit) =>
              (await knowledge.search(companyId, query, { limit })).map((r) => ({ title: r.title, text: r.text, score: r.score, coverage: r.coverage })),
            pricing: config.pricing,
            burstWindowMs: config.replyBurstWindowMs,
            llmRetryDelaysMs: config.llmRetryDelaysMs,
            concurrency: config.workerConcurrency,
          }),
          await startSendWorker({
            ...commands,
            logger: logger.child({ component: 'send-worker' }),
            bus,
            platform,
            secretBox,
            maxDeliver: config.sendMaxAttempts,
            backoffMs: config.sendRetryBackoffMs,
            concurrency: config.workerConcurrency,
          }),
        ];

  if (workers.length > 0 && adapters.engines.bus === 'in-process') {
    const head = await eventStore.headPosition();
    if (head !== null) await projections.waitForPosition(head, 60_000);
    await recoverUnfinishedJobs({ readStore, bus, logger: logger.child({ component: 'recovery' }) });
  }

  const app = await buildApp({
    config,
    logger,
    readiness: async () => ({
      eventStore: await eventStoreReady(eventStore),
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
      for (const reactor of reactors) await reactor.stop();
      for (const worker of workers) await worker.stop();
      await liveEvents.stop();
      await knowledge.stop();
      await projections.stop();
      await adapters.close();
    },
  };
}

export type Server = Awaited<ReturnType<typeof createServer>>;
