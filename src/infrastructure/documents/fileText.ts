import { Worker } from 'node:worker_threads';
import type { FileTextReader } from '../../ports/fileText.js';
import { threadEntry } from '../runtimeLayout.js';
import { readerDetail, type FileReadFailure } from './fileReadFailure.js';

/**
 * Why a file gave no text. `malformed` and `timeout` are the file's fault and their message is for the
 * uploader; `busy` asks them to come back; `failed` is the reader's own fault: its message is generic and
 * `detail` (an error name and code, no path) is for the server's log only.
 */
export class FileTextError extends Error {
  override readonly name = 'FileTextError';
  constructor(
    readonly reason: 'malformed' | 'timeout' | 'busy' | 'failed',
    message: string,
    readonly detail?: string,
  ) {
    super(message);
  }
}

const readerFailed = (detail: string) => new FileTextError('failed', 'the file reader failed', detail);

/** The FileTextReader port; its failures are FileTextError. */
export type FileTextExtractor = FileTextReader;

/**
 * Turns uploaded files into text on short-lived worker threads, one per file: a pathological PDF cannot poison
 * a shared worker, and a stuck one is simply terminated at its deadline. At most `concurrency` run at once and
 * `queue` more wait; beyond that the caller is told to come back later. Each worker gets a heap cap.
 */
export function createFileTextExtractor(
  options: { concurrency?: number; queue?: number; timeoutMs?: number; maxHeapMb?: number; /** tests only: another thread entry */ entry?: URL } = {},
): FileTextExtractor {
  const concurrency = options.concurrency ?? 2;
  const maxQueue = options.queue ?? 16;
  const timeoutMs = options.timeoutMs ?? 30_000;
  // As TypeScript (tsx, vitest) the thread starts from a shim that registers tsx; compiled, from the .js.
  const entry = options.entry ?? threadEntry(import.meta.url, { shim: './fileTextWorker.mjs', compiled: './fileTextWorker.js' });
  let running = 0;
  const waiting: Array<() => void> = [];

  const spawn = (job: { kind: 'pdf'; bytes: ArrayBuffer } | { kind: 'html'; html: string }) =>
    new Promise<{ text: string; pages: number | null }>((resolve, reject) => {
      const worker = new Worker(entry, {
        workerData: job,
        transferList: job.kind === 'pdf' ? [job.bytes] : [],
        resourceLimits: { maxOldGenerationSizeMb: options.maxHeapMb ?? 512 },
        execArgv: [],
      });
      let settled = false;
      const finish = (fn: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        void worker.terminate();
        fn();
      };
      const timer = setTimeout(() => finish(() => reject(new FileTextError('timeout', `reading the file took longer than ${timeoutMs / 1000} s`))), timeoutMs);
      worker.once('message', (msg: { ok: true; text: string; pages: number | null } | { ok: false; failure: FileReadFailure }) =>
        finish(() => {
          if (msg.ok) return resolve({ text: msg.text, pages: msg.pages });
          reject(msg.failure.fault === 'file' ? new FileTextError('malformed', msg.failure.message) : readerFailed(msg.failure.detail));
        }),
      );
      // An 'error' is the thread's own: it could not load (its message names the module's path), or the
      // file needed more memory than the heap cap allows, which is the file's fault.
      worker.once('error', (err) =>
        finish(() =>
          reject(
            (err as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY'
              ? new FileTextError('malformed', 'it needs more memory to read than a file may use')
              : readerFailed(readerDetail(err)),
          ),
        ),
      );
      worker.once('exit', (code) => finish(() => reject(readerFailed(`exit ${code}`))));
    });

  const limited = async <T>(work: () => Promise<T>): Promise<T> => {
    if (running >= concurrency) {
      if (waiting.length >= maxQueue) throw new FileTextError('busy', 'too many files are being read right now');
      await new Promise<void>((resolve) => waiting.push(resolve)); // the finishing call hands its slot over
    } else running++;
    try {
      return await work();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };

  return {
    // A copy the worker owns: the request's buffer may be a slice of a larger pooled one.
    pdfText: (bytes) => limited(() => spawn({ kind: 'pdf', bytes: new Uint8Array(bytes).buffer }).then((r) => ({ text: r.text, pages: r.pages ?? 0 }))),
    htmlText: (html) => limited(() => spawn({ kind: 'html', html }).then((r) => r.text)),
  };
}
