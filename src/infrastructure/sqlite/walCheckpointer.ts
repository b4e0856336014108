import { Worker } from 'node:worker_threads';
import type { Logger } from '../../ports/logger.js';

/**
 * SQLite checkpoints a WAL database inside the commit that crosses wal_autocheckpoint (1000 pages): that
 * commit then copies ~4 MB back into the database file and fsyncs it, 25–150 ms on this machine, on the
 * thread that committed, which for the event store is the HTTP thread. Connections opened with a
 * checkpointer raise their inline threshold to SAFETY_NET_PAGES (only reached if this thread falls behind)
 * and a worker thread checkpoints every `intervalMs` instead, off every serving event loop.
 */
export const SAFETY_NET_PAGES = 16_384;

export interface WalCheckpointer {
  /** Latest checkpoint result: frames in the WAL and frames copied back (for tests and metrics). */
  last(): { log: number; checkpointed: number } | null;
  stop(): Promise<void>;
}

export function startWalCheckpointer(path: string, options: { intervalMs?: number; logger?: Logger } = {}): WalCheckpointer {
  const worker = new Worker(new URL('./walCheckpointWorker.mjs', import.meta.url), {
    workerData: { path, intervalMs: options.intervalMs ?? 200 },
    execArgv: [],
  });
  worker.unref();
  let last: { log: number; checkpointed: number } | null = null;
  let warned = false;
  worker.on('message', (message: { type: string; log?: number; checkpointed?: number; message?: string }) => {
    if (message.type === 'checkpointed') last = { log: message.log ?? 0, checkpointed: message.checkpointed ?? 0 };
    else if (message.type === 'error' && !warned) {
      warned = true; // once: a failing checkpoint fails every tick
      options.logger?.warn({ path, reason: message.message }, 'WAL checkpoint failed; commits checkpoint inline past the safety net');
    }
  });
  worker.on('error', (err) => options.logger?.error({ err, path }, 'WAL checkpointer thread stopped; commits checkpoint inline past the safety net'));
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  return {
    last: () => last,
    async stop() {
      worker.postMessage('stop');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 1000).unref())]);
      await worker.terminate();
    },
  };
}
