import { Worker } from 'node:worker_threads';
import type { Config } from '../config.js';
import type { MetricsJson } from '../infrastructure/metrics/serviceMetrics.js';
import { threadEntry } from '../shared/runtimeLayout.js';
import type { Logger } from '../ports/logger.js';
import type { EventLoopDelay } from './eventLoopMonitor.js';
import type { ProcessorPart } from './processor.js';
import type { ProcessorThreadData, ToHost, ToProcessor } from './processorThreadMessages.js';


export interface ProcessorThread {
  waitForPosition(position: bigint, timeoutMs?: number): Promise<void>;
  stats(): Promise<{ eventLoop: EventLoopDelay } | null>;
  /** The thread's Prometheus registry as JSON (`getMetricsAsJSON`), merged into the API's /metrics; null when it does not answer. */
  metrics(): Promise<MetricsJson | null>;
  isRunning(): boolean;
  stop(): Promise<void>;
}

/**
 * Runs the processing side, or one part of it (projections | replies), on a worker thread of this
 * process, so the HTTP event loop only serves requests. A thread that dies is started again after a pause:
 * everything it does is at-least-once from checkpoints, so a restart loses nothing.
 */
export async function startProcessorThread(config: Config, logger: Logger, part: ProcessorPart = 'all'): Promise<ProcessorThread> {
  const pending = new Map<number, { resolve(value: unknown): void; reject(err: Error): void }>();
  let nextId = 0;
  let worker: Worker;
  let running = false;
  let stopping = false;

  const spawn = () =>
    new Promise<void>((resolve, reject) => {
      // A service started with --cpu-prof (bench/README.md) profiles its processor threads too; no other flag is passed on.
      worker = new Worker(threadEntry(import.meta.url, { shim: './processorThread.mjs', compiled: './processorThreadMain.js' }), { workerData: { config, part } satisfies ProcessorThreadData, execArgv: process.execArgv.filter((a) => a.startsWith('--cpu-prof')) });
      worker.on('message', (message: ToHost) => {
        if (message.type === 'ready') {
          running = true;
          resolve();
        } else if (message.type === 'failed') {
          reject(new Error(`processor thread failed to start: ${message.error}`));
        } else {
          const p = pending.get(message.id);
          if (!p) return;
          pending.delete(message.id);
          if (message.ok) p.resolve(message.value);
          else p.reject(new Error(message.error ?? 'processor thread error'));
        }
      });
      worker.on('error', (err) => logger.error({ err }, 'the processor thread crashed'));
      worker.on('exit', (code) => {
        running = false;
        for (const p of pending.values()) p.reject(new Error(`processor thread exited (code ${code})`));
        pending.clear();
        reject(new Error(`processor thread exited (code ${code}) before it was ready`));
        if (stopping) return;
        logger.error({ code }, 'the processor thread exited; starting it again in 1 s');
        setTimeout(() => void spawn().catch((err) => logger.error({ err }, 'restarting the processor thread failed')), 1000).unref();
      });
    });

  const call = (message: Omit<ToProcessor, 'id'>, timeoutMs: number) =>
    new Promise<unknown>((resolve, reject) => {
      if (!running) return reject(new Error('the processor thread is not running'));
      const id = nextId++;
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error(`processor thread did not answer ${message.type} within ${timeoutMs} ms`));
      }, timeoutMs);
      pending.set(id, {
        resolve: (v) => {
          clearTimeout(timer);
          resolve(v);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      worker.postMessage({ ...message, id } as ToProcessor);
    });

  await spawn();
  return {
    waitForPosition: async (position, timeoutMs = 5000) => {
      await call({ type: 'wait', position: String(position), timeoutMs } as Omit<ToProcessor, 'id'>, timeoutMs + 1000);
    },
    stats: async () => (running ? ((await call({ type: 'stats' }, 2000).catch(() => null)) as { eventLoop: EventLoopDelay } | null) : null),
    metrics: async () => (running ? ((await call({ type: 'metrics' }, 2000).catch(() => null)) as MetricsJson | null) : null),
    isRunning: () => running,
    async stop() {
      stopping = true;
      if (running) await call({ type: 'stop' }, 30_000).catch((err) => logger.error({ err }, 'the processor thread did not stop cleanly'));
      await worker.terminate();
    },
  };
}
