import { parentPort, workerData } from 'node:worker_threads';
import { openAdapters } from '../infrastructure/adapters.js';
import { createLogger } from '../infrastructure/logger.js';
import { createServiceMetrics } from '../infrastructure/metrics/serviceMetrics.js';
import { startTracing } from '../infrastructure/tracing/otel.js';
import { startEventLoopMonitor } from './eventLoopMonitor.js';
import { startProcessor } from './processor.js';
import { lowerThisThreadPriority } from './threadPriority.js';
import type { ProcessorThreadData, ToHost, ToProcessor } from './processorThreadMessages.js';

/** The processing side on its own thread: its own event loop, its own store connections. */
const port = parentPort!;
const { config, part } = workerData as ProcessorThreadData;
const threadName = part === 'all' ? 'processor' : part;
const logger = createLogger({ level: config.logLevel }).child({ thread: threadName });
const post = (message: ToHost) => port.postMessage(message);

// With PROCESSOR_THREAD_NICE > 0, projections, reactors and workers catch up in the time requests leave: on a
// saturated machine the kernel serves the HTTP thread first (acknowledgements keep their rate, replies lag).
// PROJECTIONS_THREAD_NICE lowers the read models alone: replies and requests first, the dashboard's views lag.
// WEBHOOK_THREAD_NICE gives outbound deliveries a bounded share beside the replies (docs/fair-processing.md).
const partNice = part === 'projections' ? config.projectionsThreadNice : part === 'webhooks' ? config.webhookThreadNice : 0;
const nice = Math.max(config.processorThreadNice, partNice);
if (nice > 0 && !lowerThisThreadPriority(nice)) {
  logger.debug({ nice }, 'processor thread priority left unchanged (not supported here)');
}

try {
  const loop = startEventLoopMonitor();
  // Process-wide figures (CPU, memory) are the main thread's registry's: here only this thread's own.
  const metrics = createServiceMetrics({ processMetrics: false });
  metrics.watchEventLoop(threadName, loop);
  // This thread's own tracer provider: the jobs it takes carry their trace in (src/ports/tracing.ts).
  const tracing = await startTracing(config.tracing, threadName);
  const adapters = await openAdapters(config, logger);
  const processor = await startProcessor(config, logger, adapters, { metrics, part });
  port.on('message', (message: ToProcessor) => {
    switch (message.type) {
      case 'wait':
        processor.projections.waitForPosition(BigInt(message.position), message.timeoutMs).then(
          () => post({ type: 'reply', id: message.id, ok: true }),
          (err: unknown) => post({ type: 'reply', id: message.id, ok: false, error: err instanceof Error ? err.message : String(err) }),
        );
        return;
      case 'stats':
        post({ type: 'reply', id: message.id, ok: true, value: { eventLoop: loop.snapshot() } });
        return;
      case 'metrics':
        metrics.registry.getMetricsAsJSON().then(
          (value) => post({ type: 'reply', id: message.id, ok: true, value }),
          (err: unknown) => post({ type: 'reply', id: message.id, ok: false, error: err instanceof Error ? err.message : String(err) }),
        );
        return;
      case 'stop':
        void (async () => {
          try {
            await processor.stop();
            await adapters.close();
            loop.stop();
            await tracing.shutdown().catch((err: unknown) => logger.warn({ err }, 'the last spans could not be exported'));
            post({ type: 'reply', id: message.id, ok: true });
          } catch (err) {
            post({ type: 'reply', id: message.id, ok: false, error: err instanceof Error ? err.message : String(err) });
          }
          port.close();
        })();
        return;
    }
  });
  post({ type: 'ready' });
} catch (err) {
  logger.error({ err }, 'the processor thread failed to start');
  post({ type: 'failed', error: err instanceof Error ? err.message : String(err) });
}
