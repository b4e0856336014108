// The WAL checkpointer's thread (plain JavaScript: it needs no TypeScript loader, compiled or not). It owns
// one connection to the database file and checkpoints it on a timer, so the threads that serve requests and
// run projections never pay for a checkpoint inside one of their commits.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

const { path, intervalMs } = workerData;
const db = new Database(path, { timeout: 0 });
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL'); // a checkpoint syncs the file before the WAL may be reused
db.pragma('wal_autocheckpoint = 0');

let stopped = false;
let timer = null;
const tick = () => {
  timer = null;
  if (stopped) return;
  try {
    // PASSIVE: copies what no reader still needs, waits for nobody; a busy result is simply tried again.
    const [row] = db.pragma('wal_checkpoint(PASSIVE)');
    parentPort.postMessage({ type: 'checkpointed', ...row });
  } catch (err) {
    parentPort.postMessage({ type: 'error', message: err instanceof Error ? err.message : String(err) });
  }
  timer = setTimeout(tick, intervalMs);
};
parentPort.on('message', (message) => {
  if (message === 'stop') {
    stopped = true;
    if (timer) clearTimeout(timer);
    db.close();
    parentPort.close();
  }
});
timer = setTimeout(tick, intervalMs);
