import { join } from 'node:path';
import type { Logger as PinoLogger } from 'pino';
import type { Config } from './config.js';
import { systemClock, type AuthDeps, type Clock, type CommandDeps } from './commands/ports.js';
import { buildApp } from './http/app.js';
import type { HttpServices } from './http/services.js';
import { adminRoutes } from './http/routes/admin.js';
import { apiTokenRoutes } from './http/routes/apiTokens.js';
import { authRoutes } from './http/routes/auth.js';
import { billingRoutes } from './http/routes/billing.js';
import { openAdapters, type Adapters } from './infrastructure/adapters.js';
import { createArgonHasher } from './infrastructure/auth/argonHasher.js';
import { createJwtAccessTokens } from './infrastructure/auth/jwtAccessTokens.js';
import { loadOrCreateKeyFile } from './infrastructure/keyFile.js';
import { createSecretBox, parseMasterKey } from './infrastructure/crypto/secretBox.js';
import { createPlatformClient } from './infrastructure/platform/platformClient.js';
import { checkPlatformUrl } from './infrastructure/platform/ssrfGuard.js';
import { integrationRoutes } from './http/routes/integrations.js';
import { webhookLogRoutes } from './http/routes/webhookLogs.js';
import { webhookRoutes } from './http/routes/webhooks.js';
import { allProjections } from './projections/index.js';
import { startProjections } from './projections/projectionRunner.js';

export interface ServerOptions {
  clock?: Clock;
  /** Adapters built by the caller (tests); otherwise chosen from the configuration. */
  adapters?: Adapters;
}

/**
 * The composition root shared by main.ts and the tests: adapters, projections, workers and the HTTP
 * app, with one stop() that shuts them down in the right order.
 */
export async function createServer(config: Config, logger: PinoLogger, options: ServerOptions = {}) {
  const adapters = options.adapters ?? (await openAdapters(config, logger));
  const clock = options.clock ?? systemClock;
  const projections = await startProjections({
    eventStore: adapters.eventStore,
    readStore: adapters.readStore,
    projections: allProjections,
    logger: logger.child({ component: 'projections' }),
  });

  const jwtKey = config.jwtSecret ? new TextEncoder().encode(config.jwtSecret) : loadOrCreateKeyFile(join(config.dataDir, 'jwt.key'));
  const commands: CommandDeps = { eventStore: adapters.eventStore, clock, logger: logger.child({ component: 'commands' }) };
  const auth: AuthDeps = {
    ...commands,
    hasher: createArgonHasher(),
    tokens: createJwtAccessTokens({ key: jwtKey, ttlSeconds: config.accessTokenTtlSeconds, now: () => clock.now() }),
    superadminEmails: config.superadminEmails,
    refreshTokenTtlMs: config.refreshTokenTtlMs,
  };
  const masterKey = config.masterKey ? parseMasterKey(config.masterKey) : loadOrCreateKeyFile(join(config.dataDir, 'master.key'));
  const requireHttps = config.env === 'production';
  const services: HttpServices = {
    config,
    commands,
    auth,
    readStore: adapters.readStore,
    secretBox: createSecretBox(masterKey),
    platform: createPlatformClient({ allowPrivate: config.allowPrivatePlatformUrls, requireHttps, logger: logger.child({ component: 'platform' }) }),
    checkPlatformUrl: (url) => checkPlatformUrl(url, { allowPrivate: config.allowPrivatePlatformUrls, requireHttps }),
    waitForProjections: (position) => (position === null ? Promise.resolve() : projections.waitForPosition(position)),
  };

  const app = await buildApp({
    config,
    logger,
    readiness: async () => ({
      eventStore: await adapters.eventStore.headPosition().then(
        () => true,
        () => false,
      ),
      readStore: await adapters.readStore.activeGeneration().then(
        () => true,
        () => false,
      ),
      bus: adapters.bus.isConnected(),
    }),
    features: [
      authRoutes(services),
      apiTokenRoutes(services),
      billingRoutes(services),
      adminRoutes(services),
      integrationRoutes(services),
      webhookRoutes(services),
      webhookLogRoutes(services),
    ],
  });

  let stopped = false;
  return {
    app,
    adapters,
    services,
    projections,
    async listen(port = config.port, host = config.host) {
      return app.listen({ port, host });
    },
    /** Stop accepting, finish in-flight requests, stop subscriptions, then close the stores. */
    async stop() {
      if (stopped) return;
      stopped = true;
      await app.close();
      await projections.stop();
      await adapters.close();
    },
  };
}

export type Server = Awaited<ReturnType<typeof createServer>>;
