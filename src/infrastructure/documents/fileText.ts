import { Worker } from 'node:worker_threads';
import { MAX_DOCUMENT_BYTES } from '../../domain/knowledge/documents/content.js';
import type { FileReadOptions, FileTextReader } from '../../ports/fileText.js';
import { createCompanyTurns, TurnRefusedError } from '../../shared/fairness/companyTurns.js';
import { threadEntry } from '../../shared/runtimeLayout.js';
import { readerDetail } from './fileReadFailure.js';
import type { FileTextJob, FileTextReply } from './fileTextWorker.js';

/**
 * Why a file gave no text. `malformed`, `too-large` (it passed a reading limit) and `timeout` are the file's fault
 * and their message is for the uploader; `busy` asks them to come back; `aborted`: nobody waits for the text any
 * more; `failed` is the reader's own fault: its message is generic and `detail` (an error name and code, no path)
 * is for the server's log only.
 */
export class FileTextError extends Error {
  override readonly name = 'FileTextError';
  constructor(
    readonly reason: 'malformed' | 'too-large' | 'timeout' | 'busy' | 'aborted' | 'failed',
    message: string,
    readonly detail?: string,
  ) {
    super(message);
  }
}

const readerFailed = (detail: string) => new FileTextError('failed', 'the file reader failed', detail);

/** The FileTextReader port; its failures are FileTextError. */
export type FileTextExtractor = FileTextReader;

export interface FileTextExtractorOptions {
  /** Files read at once (threads), all companies together. Default 2. */
  concurrency?: number;
  /** Files read at once for one company. Default concurrency - 1 (at least 1): a reader is always left for the others. */
  perCompany?: number;
  /** Files waiting at most, all companies together. Default 16. */
  queue?: number;
  /** Files of one company waiting at most. Default half of `queue`. */
  perCompanyQueue?: number;
  /** A file that waited this long for a reader is refused as busy. Default 10 s. */
  maxWaitMs?: number;
  /** Reading one file may take this long. Default 15 s: with the wait, well inside the server's 30 s connection timeout. */
  timeoutMs?: number;
  /** Heap of a reading thread (old generation). Default 256 MiB. */
  maxHeapMb?: number;
  /** Bytes a reading thread may allocate as byte arrays (decompressed streams, fonts). Default 256 MiB. */
  maxExpandedBytes?: number;
  /** Characters of text a file may yield before its reading stops. Default twice the largest document (bytes). */
  maxTextChars?: number;
  /** tests only: another thread entry */
  entry?: URL;
}

/**
 * Turns uploaded files into text on short-lived worker threads, one per file: a pathological PDF cannot poison
 * a shared worker, and a stuck one is simply terminated at its deadline, or as soon as its uploader goes away.
 * The threads are shared between companies in turns (src/shared/fairness/companyTurns.ts): at most `concurrency` run at once and
 * `queue` more wait, one company never holds every reader or every waiting place, and a company's first file goes
 * ahead of another company's backlog. Each thread has a heap cap, a cap on what its file may expand into, and a
 * cap on the text it may collect, all enforced while it reads: so memory is bounded per file and, by
 * `concurrency`, in total.
 */
export function createFileTextExtractor(options: FileTextExtractorOptions = {}): FileTextExtractor {
  const concurrency = options.concurrency ?? 2;
  const queue = options.queue ?? 16;
  const turns = createCompanyTurns({
    slots: concurrency,
    perCompany: options.perCompany ?? Math.max(1, concurrency - 1),
    queue,
    perCompanyQueue: options.perCompanyQueue ?? Math.max(1, Math.floor(queue / 2)),
    maxWaitMs: options.maxWaitMs ?? 10_000,
  });
  const limits: FileTextJob['limits'] = { maxExpandedBytes: options.maxExpandedBytes ?? 256 * 1024 * 1024, maxTextChars: options.maxTextChars ?? 2 * MAX_DOCUMENT_BYTES };
  const read = readOnThread({
    // As TypeScript (tsx, vitest) the thread starts from a shim that registers tsx; compiled, from the .js.
    entry: options.entry ?? threadEntry(import.meta.url, { shim: './fileTextWorker.mjs', compiled: './fileTextWorker.js' }),
    timeoutMs: options.timeoutMs ?? 15_000,
    maxHeapMb: options.maxHeapMb ?? 256,
  });

  const inTurn = async <T>(file: FileTextJob['file'], readOptions: FileReadOptions = {}, then: (r: { text: string; pages: number | null; title: string | null }) => T): Promise<T> => {
    try {
      return then(await turns.run(readOptions.companyId ?? '', () => read({ file, limits }, readOptions.signal), readOptions.signal));
    } catch (err) {
      if (!(err instanceof TurnRefusedError)) throw err;
      throw err.reason === 'aborted' ? new FileTextError('aborted', 'the upload was cancelled') : new FileTextError('busy', 'too many files are being read right now');
    }
  };

  return {
    // A copy the worker owns: the request's buffer may be a slice of a larger pooled one.
    pdfText: (bytes, readOptions) => inTurn({ kind: 'pdf', bytes: new Uint8Array(bytes).buffer }, readOptions, (r) => ({ text: r.text, pages: r.pages ?? 0, title: r.title })),
    htmlText: (html, readOptions) => inTurn({ kind: 'html', html }, readOptions, (r) => ({ text: r.text, title: r.title })),
  };
}

/** Reads one file on a thread of its own, ended at its answer, its deadline, or when `signal` aborts. */
function readOnThread(options: { entry: URL; timeoutMs: number; maxHeapMb: number }) {
  const { entry, timeoutMs, maxHeapMb } = options;
  return (job: FileTextJob, signal?: AbortSignal) =>
    new Promise<{ text: string; pages: number | null; title: string | null }>((resolve, reject) => {
      if (signal?.aborted) return reject(new FileTextError('aborted', 'the upload was cancelled'));
      const worker = new Worker(entry, {
        workerData: job,
        transferList: job.file.kind === 'pdf' ? [job.file.bytes] : [],
        resourceLimits: { maxOldGenerationSizeMb: maxHeapMb, maxYoungGenerationSizeMb: 16 },
        execArgv: [],
      });
      let settled = false;
      const finish = (fn: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        void worker.terminate(); // frees its memory at once, whatever it was doing
        fn();
      };
      const onAbort = () => finish(() => reject(new FileTextError('aborted', 'the upload was cancelled')));
      signal?.addEventListener('abort', onAbort, { once: true });
      const timer = setTimeout(() => finish(() => reject(new FileTextError('timeout', `reading the file took longer than ${timeoutMs / 1000} s`))), timeoutMs);
      worker.once('message', (msg: FileTextReply) => finish(() => (msg.ok ? resolve({ text: msg.text, pages: msg.pages, title: msg.title }) : reject(failureOf(msg.failure)))));
      // An 'error' is the thread's own: it could not load (its message names the module's path), or the
      // file needed more memory than the heap cap allows, which is the file's fault.
      worker.once('error', (err) =>
        finish(() =>
          reject(
            (err as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY'
              ? new FileTextError('too-large', 'it needs more memory to read than a file may use')
              : readerFailed(readerDetail(err)),
          ),
        ),
      );
      worker.once('exit', (code) => finish(() => reject(readerFailed(`exit ${code}`))));
    });
}

function failureOf(failure: Extract<FileTextReply, { ok: false }>['failure']): FileTextError {
  if (failure.fault === 'file') return new FileTextError('malformed', failure.message);
  if (failure.fault === 'too-large') return new FileTextError('too-large', failure.message);
  return readerFailed(failure.detail);
}
