import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyPluginAsync } from 'fastify';
import type { Logger as PinoLogger } from 'pino';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import {
  jsonSchemaTransform,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import type { Config } from '../config.js';
import { ACTION_LIMITS } from '../domain/actions/definition.js';
import { answerClientError, answerError, installErrorHandler } from './errorHandler.js';
import { registerHealthRoutes, type HealthDeps } from './routes/health.js';
import type { ZodApp } from './routes/zodApp.js';

export interface AppDeps extends HealthDeps {
  config: Config;
  logger: PinoLogger;
  /** Route plugins of the features, registered after the shell. */
  features?: FastifyPluginAsync[];
}

export const BODY_LIMIT = 1024 * 1024;

export async function buildApp(deps: AppDeps) {
  const app = createFastify(deps);
  installJsonOnlyParsers(app);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  installErrorHandler(app);
  installResponseHooks(app, deps.logger);
  await registerOpenApi(app);
  registerHealthRoutes(app, deps);
  for (const feature of deps.features ?? []) await app.register(feature);
  return app;
}

function createFastify(deps: AppDeps) {
  return Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[\w.-]{1,64}$/.test(given) ? given : randomUUID();
    },
    bodyLimit: BODY_LIMIT,
    // A hop count is valid at run time though fastify's types omit it.
    trustProxy: deps.config.trustProxy as boolean | string[],
    // A slow client cannot hold a connection open indefinitely: the whole request within 30 s.
    requestTimeout: 30_000,
    connectionTimeout: silentConnectionMs(deps.config),
    return503OnClosing: true,
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    forceCloseConnections: 'idle',
    // Two info lines per request drowned the start-up output; see installResponseHooks.
    logController: new LogController({ disableRequestLogging: true }),
    // Errors met before any route (a malformed %-escape), and connections the HTTP parser gave up on (a
    // timeout, oversized headers): answered in the spec's shape, not in fastify's own (see errorHandler).
    frameworkErrors: answerError,
    clientErrorHandler: answerClientError,
  }).withTypeProvider<ZodTypeProvider>();
}

/**
 * How long a connection may stay silent (the socket's idle timeout). While a route waits on an outbound call the
 * connection is silent, so this outlasts the longest such wait: at 30 s, an action test with `timeoutMs: 30000`
 * against a hanging endpoint had its connection reset just before its documented "no answer within 30000 ms".
 */
export function silentConnectionMs(config: Pick<Config, 'llmTimeoutMs' | 'webhooks'>): number {
  return Math.max(ACTION_LIMITS.maxTimeoutMs, config.llmTimeoutMs, config.webhooks.timeoutMs) + 30_000;
}

function installJsonOnlyParsers(app: ZodApp): void {
  // An action such as POST /pause carries no body: an empty JSON body is read as none, not refused.
  const jsonParser = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '' || (typeof body === 'string' && body.trim() === '')) return done(null, undefined);
    return jsonParser(request, body as string, done);
  });
  // The API reads JSON only (routes that take files or raw webhooks add their own parsers): a text/plain body
  // is 415, as any other type is, not a string the schema then refuses with a puzzling 400.
  app.removeContentTypeParser('text/plain');
}

function installResponseHooks(app: ZodApp, logger: PinoLogger): void {
  // Requests still in flight at shutdown finish, and their keep-alive connections close after them, so
  // close() does not wait for idle sockets to time out.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
    if (closing) reply.header('connection', 'close');
  });
  // One line per request: at debug (LOG_LEVEL=debug shows every request), a 5xx at warn so failures stay
  // visible at the default level (the error itself is logged at error by the error handler). A 503 from
  // /readyz is an answer, not a failure: load balancers poll it, and it is 503 while the service starts.
  app.addHook('onResponse', async (request, reply) => {
    const level = reply.statusCode >= 500 && request.routeOptions.url !== '/readyz' ? 'warn' : 'debug';
    if (!logger.isLevelEnabled(level)) return;
    request.log[level]({ req: request, res: { statusCode: reply.statusCode }, responseTime: reply.elapsedTime }, 'request completed');
  });
}

/** The OpenAPI document generated from the route schemas (/docs/json) and its UI (/docs). */
async function registerOpenApi(app: ZodApp): Promise<void> {
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.0.3',
      info: { title: 'Messaging Agent Service', version: '0.1.0', description: 'AI agents answering customers.' },
      components: {
        securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'Session JWT or company API token' } },
      },
    },
    transform: jsonSchemaTransform,
  });
  await app.register(fastifySwaggerUi, { routePrefix: '/docs' });
}

export type App = Awaited<ReturnType<typeof buildApp>>;

/**
 * listen() and a stop() that runs once: stop accepting and finish in-flight requests, then `after`, in order
 * (subscriptions and workers before the stores they use).
 */
export function serviceLifecycle(app: App, defaults: { port: number; host: string }, after: Array<() => void | Promise<void>>) {
  let stopped = false;
  return {
    async listen(port = defaults.port, host = defaults.host) {
      return app.listen({ port, host });
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await app.close();
      for (const step of after) await step();
    },
  };
}
