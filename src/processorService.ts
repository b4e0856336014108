import type { Logger as PinoLogger } from 'pino';
import type { Config } from './config.js';
import { buildApp, serviceLifecycle } from './http/app.js';
import { adapterReadiness, openAdapters } from './infrastructure/adapters.js';
import { exposeMetrics } from './infrastructure/metrics/exposition.js';
import { createServiceMetrics } from './infrastructure/metrics/serviceMetrics.js';
import { metricsRoutes } from './http/routes/metrics.js';
import { startEventLoopMonitor } from './processing/eventLoopMonitor.js';
import { startProcessor } from './processing/processor.js';
import { publishProjectionProgress } from './processing/projectionProgress.js';

/**
 * ROLE=processor: projections, reactors and workers without the API, for scaling the two apart. It serves
 * only /healthz, /readyz and /metrics (on PORT), and records how far its projections got so API instances elsewhere
 * can wait for their own writes.
 */
export async function createProcessorService(config: Config, logger: PinoLogger) {
  const adapters = await openAdapters(config, logger);
  const loop = startEventLoopMonitor();
  const metrics = createServiceMetrics({ processMetrics: true });
  metrics.watchEventLoop('processor', loop);
  const processor = await startProcessor(config, logger, adapters, { metrics });
  const progress = publishProjectionProgress({ ...adapters, projections: processor.projections, logger: logger.child({ component: 'projection-progress' }) });
  const app = await buildApp({
    config,
    logger,
    readiness: () => adapterReadiness(adapters),
    metrics: async () => ({ eventLoop: { processor: loop.snapshot() } }),
    features: [metricsRoutes({ token: config.metricsToken, expose: () => exposeMetrics(metrics.registry, []) })],
  });
  return {
    app,
    adapters,
    processingStarted: Promise.resolve(),
    ...serviceLifecycle(app, config, [() => progress.stop(), () => processor.stop(), () => loop.stop(), () => adapters.close()]),
  };
}
