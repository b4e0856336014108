import { createRequire } from 'node:module';
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

/**
 * The thread's whole program, plain JavaScript evaluated by the worker: it needs no TypeScript loader and no
 * file of its own, so it runs the same from src/ (tsx, vitest) and compiled (dist/server). It owns one
 * connection and checkpoints on a timer; PASSIVE copies what no reader still needs and waits for nobody, and a
 * busy result is simply tried again at the next tick.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path, { timeout: 0 });
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
db.pragma('wal_autocheckpoint = 0');
let timer = null;
const tick = () => {
  try {
    const [row] = db.pragma('wal_checkpoint(PASSIVE)');
    parentPort.postMessage({ type: 'checkpointed', log: row.log, checkpointed: row.checkpointed });
  } catch (err) {
    parentPort.postMessage({ type: 'error', message: err instanceof Error ? err.message : String(err) });
  }
  timer = setTimeout(tick, workerData.intervalMs);
};
parentPort.on('message', (message) => {
  if (message !== 'stop') return;
  clearTimeout(timer);
  db.close();
  parentPort.close();
});
timer = setTimeout(tick, workerData.intervalMs);
`;

export interface WalCheckpointer {
  /** Latest checkpoint result: frames in the WAL and frames copied back (for tests and metrics). */
  last(): { log: number; checkpointed: number } | null;
  stop(): Promise<void>;
}

export function startWalCheckpointer(path: string, options: { intervalMs?: number; logger?: Logger } = {}): WalCheckpointer {
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    // The driver by absolute path: an evaluated worker resolves modules from the working directory otherwise.
    workerData: { path, intervalMs: options.intervalMs ?? 200, driver: createRequire(import.meta.url).resolve('better-sqlite3') },
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
      // Referenced while stopping: an unreferenced worker and timer let a CLI's event loop end mid-close, so
      // the close never resolved and the process exited 0 whatever its exit code was to be.
      worker.ref();
      worker.postMessage('stop');
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([exited, new Promise((r) => (timer = setTimeout(r, 1000)))]);
      clearTimeout(timer);
      await worker.terminate();
    },
  };
}
