import { ConfigError, loadConfig, type Config } from './config.js';
import { createLogger } from './infrastructure/logger.js';
import { createProcessorService } from './processorService.js';
import { createServer } from './server.js';
import { lowerThisThreadPriority } from './processing/threadPriority.js';
import { startTracing } from './infrastructure/tracing/otel.js';

let config: Config;
try {
  config = loadConfig();
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(err.message);
    process.exit(1);
  }
  throw err;
}

const logger = createLogger({ level: config.logLevel });
// Before anything that may start a span (off unless OTEL_EXPORTER_OTLP_ENDPOINT is set: no SDK loaded).
const tracing = await startTracing(config.tracing, 'main');
const server = config.role === 'processor' ? await createProcessorService(config, logger) : await createServer(config, logger);
await server.listen();
// Lowered once every other thread exists: threads inherit the nice of the thread that creates them.
if (config.httpThreadNice > 0 && config.role === 'all' && config.processorThread) void server.processingStarted.then(() => lowerThisThreadPriority(config.httpThreadNice)).catch(() => undefined);
// The processing side may still be starting (see createServer); if it cannot, the service is of no use.
server.processingStarted.catch((err: unknown) => {
  logger.fatal({ err }, 'the processing side failed to start');
  void server.stop().finally(() => process.exit(1));
});
// The one line a newcomer reads: where to open the dashboard and where the platform must send webhooks.
const dashboard = config.dashboardUrl ?? `${config.publicBaseUrl}/`;
const webhookBase = `${config.publicBaseUrl}/api/webhook/`;
logger.info(
  { role: config.role, processorThread: config.role === 'all' && config.processorThread, engines: server.adapters.engines, publicBaseUrl: config.publicBaseUrl, dashboardUrl: dashboard, webhookBaseUrl: webhookBase },
  config.role === 'processor'
    ? 'messaging agent service started (processor: no API here)'
    : `messaging agent service started: open the dashboard at ${dashboard} and sign up; webhooks go to ${webhookBase}{connectorType}/{integrationId}`,
);

let shuttingDown = false;
async function shutdown(signal: string) {
  if (shuttingDown) return;
  shuttingDown = true;
  logger.info({ signal }, 'shutting down: finishing in-flight requests');
  const force = setTimeout(() => {
    logger.error('shutdown took too long; exiting');
    process.exit(1);
  }, config.shutdownTimeoutMs);
  force.unref();
  try {
    await server.stop();
    await tracing.shutdown().catch((err: unknown) => logger.warn({ err }, 'the last spans could not be exported'));
    logger.info('shutdown complete');
    process.exit(0);
  } catch (err) {
    logger.error({ err }, 'shutdown failed');
    process.exit(1);
  }
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('unhandledRejection', (err) => logger.error({ err }, 'unhandled promise rejection'));
