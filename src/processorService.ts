import type { Logger as PinoLogger } from 'pino';
import type { Config } from './config.js';
import { buildApp, serviceLifecycle } from './http/app.js';
import { adapterReadiness, openAdapters } from './infrastructure/adapters.js';
import { exposeMetrics } from './infrastructure/metrics/exposition.js';
import { createServiceMetrics, type MetricsJson } from './infrastructure/metrics/serviceMetrics.js';
import { metricsRoutes } from './http/routes/metrics.js';
import { startEventLoopMonitor } from './processing/eventLoopMonitor.js';
import { startProcessor } from './processing/processor.js';
import { startProcessorThread } from './processing/processorThread.js';

/**
 * ROLE=processor: projections, reactors and workers without the API, for scaling the two apart. It serves
 * only /healthz, /readyz and /metrics (on PORT), and records how far its projections got so API instances elsewhere
 * can wait for their own writes. As under ROLE=all, the projections get a thread of their own (unless
 * PROCESSOR_THREAD=false), so busy read models do not starve the replies this process answers.
 */
export async function createProcessorService(config: Config, logger: PinoLogger) {
  const adapters = await openAdapters(config, logger);
  const loop = startEventLoopMonitor();
  const metrics = createServiceMetrics({ processMetrics: true });
  metrics.watchEventLoop('processor', loop);
  const projectionsThread = config.processorThread ? await startProcessorThread(config, logger.child({ component: 'projections-thread' }), 'projections') : null;
  // Outbound deliveries on a thread of their own too, their share beside the replies bounded (WEBHOOK_THREAD_NICE).
  const webhooksThread = config.processorThread ? await startProcessorThread(config, logger.child({ component: 'webhooks-thread' }), 'webhooks') : null;
  const processor = await startProcessor(config, logger, adapters, { metrics, part: projectionsThread ? 'replies' : 'all', publishProgress: !projectionsThread });
  const remoteMetrics = async (): Promise<MetricsJson[]> => {
    const json = await Promise.all([projectionsThread?.metrics(), webhooksThread?.metrics()]);
    return json.filter((j): j is MetricsJson => !!j);
  };
  const app = await buildApp({
    config,
    logger,
    readiness: async () => ({
      ...(await adapterReadiness(adapters)),
      ...(projectionsThread ? { projections: projectionsThread.isRunning() } : {}),
      ...(webhooksThread ? { webhooks: webhooksThread.isRunning() } : {}),
    }),
    metrics: async () => {
      const [projections, webhooks] = await Promise.all([projectionsThread?.stats(), webhooksThread?.stats()]);
      return { eventLoop: { processor: loop.snapshot(), ...(projections ? { projections: projections.eventLoop } : {}), ...(webhooks ? { webhooks: webhooks.eventLoop } : {}) } };
    },
    features: [metricsRoutes({ token: config.metricsToken, expose: async () => exposeMetrics(metrics.registry, await remoteMetrics()) })],
  });
  return {
    app,
    adapters,
    processingStarted: Promise.resolve(),
    ...serviceLifecycle(app, config, [
      async () => webhooksThread?.stop(),
      () => processor.stop(),
      async () => projectionsThread?.stop(),
      () => loop.stop(),
      () => adapters.close(),
    ]),
  };
}
