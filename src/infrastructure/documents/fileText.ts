import { Worker } from 'node:worker_threads';

export class FileTextError extends Error {
  override readonly name = 'FileTextError';
  constructor(
    readonly reason: 'malformed' | 'timeout' | 'busy',
    message: string,
  ) {
    super(message);
  }
}

export interface FileTextExtractor {
  /** The text of every page, in order; throws FileTextError when the file cannot be read. */
  pdfText(bytes: Uint8Array): Promise<{ text: string; pages: number }>;
  /** The readable text of an HTML page (see domain/knowledge/htmlToText). */
  htmlText(html: string): Promise<string>;
}

/**
 * Turns uploaded files into text on short-lived worker threads, one per file: a pathological PDF cannot poison
 * a shared worker, and a stuck one is simply terminated at its deadline. At most `concurrency` run at once and
 * `queue` more wait; beyond that the caller is told to come back later. Each worker gets a heap cap.
 */
export function createFileTextExtractor(options: { concurrency?: number; queue?: number; timeoutMs?: number; maxHeapMb?: number } = {}): FileTextExtractor {
  const concurrency = options.concurrency ?? 2;
  const maxQueue = options.queue ?? 16;
  const timeoutMs = options.timeoutMs ?? 30_000;
  let running = 0;
  const waiting: Array<() => void> = [];

  const spawn = (job: { kind: 'pdf'; bytes: ArrayBuffer } | { kind: 'html'; html: string }) =>
    new Promise<{ text: string; pages: number | null }>((resolve, reject) => {
      const worker = new Worker(new URL('./fileTextWorker.mjs', import.meta.url), {
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
      worker.once('message', (msg: { ok: true; text: string; pages: number | null } | { ok: false; message: string }) =>
        finish(() => (msg.ok ? resolve({ text: msg.text, pages: msg.pages }) : reject(new FileTextError('malformed', msg.message)))),
      );
      worker.once('error', (err) => finish(() => reject(new FileTextError('malformed', err.message))));
      worker.once('exit', (code) => finish(() => reject(new FileTextError('malformed', `the file reader stopped (exit ${code})`))));
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
