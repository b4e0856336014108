import { Worker } from 'node:worker_threads';
import { chunkTexts } from '../../domain/knowledge/chunking.js';
import { createCompanyTurns } from '../../shared/fairness/companyTurns.js';
import { threadEntry } from '../../shared/runtimeLayout.js';
import type { Calibration } from '../../domain/answers/calibration.js';
import { CALIBRATION_DELAY_MS, createKnowledgeIndex, type KnowledgeIndex, type KnowledgeSearchOptions, type KnowledgeSearchResult } from './knowledgeIndex.js';

/**
 * Where the knowledge index and the chunking run. Chunking a 1 MiB document takes 0.1–0.3 s and indexing
 * its ~1,500 passages 0.5–1.5 s of CPU: on the HTTP thread that stalled every request (/healthz included)
 * for seconds. `startIndexWorker` runs both on one dedicated worker thread that owns the per-company
 * indexes; `inProcessIndexHost` runs them inline (unit tests of the indexer).
 */
export interface KnowledgeIndexHost {
  /** Number of passages `chunkTexts` makes of the document. */
  chunkCount(document: { title: string; content: string }): Promise<number>;
  /** Chunks and indexes (or re-indexes) a document; resolves with its passage count. */
  add(companyId: string, document: { id: string; title: string; content: string }): Promise<number>;
  remove(companyId: string, documentId: string): Promise<void>;
  search(companyId: string, query: string, options?: KnowledgeSearchOptions): Promise<KnowledgeSearchResult[]>;
  /** The company's calibration as the index last fitted it (null: none yet). */
  calibration(companyId: string): Promise<Calibration | null>;
  close(): Promise<void>;
}

export type IndexRequest =
  | { op: 'chunkCount'; title: string; content: string }
  | { op: 'add'; companyId: string; id: string; title: string; content: string }
  | { op: 'remove'; companyId: string; documentId: string }
  | { op: 'search'; companyId: string; query: string; options?: KnowledgeSearchOptions }
  | { op: 'calibration'; companyId: string };

/** Runs one request against an index; the worker thread and the in-process host share it. */
export function handleIndexRequest(index: KnowledgeIndex, request: IndexRequest): unknown {
  switch (request.op) {
    case 'chunkCount':
      return chunkTexts(request).length;
    case 'add': {
      const chunks = chunkTexts(request);
      index.addDocument(request.companyId, { id: request.id, title: request.title, chunks });
      return chunks.length;
    }
    case 'remove':
      index.removeDocument(request.companyId, request.documentId);
      return null;
    case 'search':
      return index.search(request.companyId, request.query, request.options);
    case 'calibration':
      return index.calibration(request.companyId);
  }
}

export function inProcessIndexHost(index: KnowledgeIndex = createKnowledgeIndex({ calibrationDelayMs: CALIBRATION_DELAY_MS })): KnowledgeIndexHost {
  const run = async <T>(request: IndexRequest) => handleIndexRequest(index, request) as T;
  return {
    chunkCount: (document) => run({ op: 'chunkCount', ...document }),
    add: (companyId, document) => run({ op: 'add', companyId, ...document }),
    remove: (companyId, documentId) => run({ op: 'remove', companyId, documentId }),
    search: (companyId, query, options) => run({ op: 'search', companyId, query, ...(options ? { options } : {}) }),
    calibration: (companyId) => run({ op: 'calibration', companyId }),
    close: async () => {},
  };
}

/**
 * Whose turn a request takes on the index thread: a search its company's; indexing (the indexer's adds and
 * removals, one at a time) a turn of its own, and so does chunking for uploads (bounded per document).
 */
function turnOf(request: IndexRequest): string {
  if (request.op === 'search' || request.op === 'calibration') return `company:${request.companyId}`;
  return request.op === 'chunkCount' ? 'chunking' : 'indexing';
}

export class KnowledgeWorkerError extends Error {
  override readonly name = 'KnowledgeWorkerError';
}

/**
 * One worker thread holding every company's index. Requests are served one at a time in turns between companies
 * (src/shared/fairness/companyTurns.ts), so one company's burst of searches cannot delay another company's search by more than one of
 * them (each bounded: boundedTerms.ts). A search sent after an add resolved sees the document; the indexer awaits
 * each add before it reports the position reached. Under tsx or vitest the thread starts from a .mjs shim that
 * registers tsx (they do not share a loader); compiled, it loads knowledgeWorker.js (see threadEntry).
 */
export function startIndexWorker(): KnowledgeIndexHost {
  const worker = new Worker(threadEntry(import.meta.url, { shim: './knowledgeWorker.mjs', compiled: './knowledgeWorker.js' }), { execArgv: [] });
  worker.unref(); // never keeps the process alive on its own; close() ends it
  const pending = new Map<number, { resolve(value: unknown): void; reject(err: Error): void }>();
  let nextId = 0;
  let failure: Error | null = null;
  const failAll = (err: Error) => {
    failure ??= err;
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };
  worker.on('message', (msg: { id: number; value?: unknown; error?: string }) => {
    const p = pending.get(msg.id);
    if (!p) return;
    pending.delete(msg.id);
    if (msg.error !== undefined) p.reject(new KnowledgeWorkerError(msg.error));
    else p.resolve(msg.value);
  });
  worker.on('error', (err) => failAll(new KnowledgeWorkerError(`knowledge index worker failed: ${err.message}`)));
  worker.on('exit', (code) => failAll(new KnowledgeWorkerError(`knowledge index worker exited (code ${code})`)));

  const send = <T>(request: IndexRequest) =>
    new Promise<T>((resolve, reject) => {
      if (failure) return reject(failure);
      const id = nextId++;
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      worker.postMessage({ id, request });
    });
  // One request on the thread at a time, the next chosen in turns (see turnOf): a company's search waits for at
  // most one request of each other company with work, never for another company's whole queue.
  const turns = createCompanyTurns({ slots: 1, perCompany: 1 });
  const call = <T>(request: IndexRequest) => turns.run(turnOf(request), () => send<T>(request));
  // The documents each company has in the index: a company without any (many agents answer without a
  // knowledge base) is answered at once, with no trip to the thread and no turn behind other companies.
  const indexed = new Map<string, Set<string>>();
  return {
    chunkCount: (document) => call({ op: 'chunkCount', title: document.title, content: document.content }),
    async add(companyId, document) {
      // Counted before the add runs: a search sent meanwhile waits its turn on the thread behind it, as it did
      // before this shortcut (at start-up the index is rebuilt while the first questions arrive).
      const documents = indexed.get(companyId) ?? new Set<string>();
      indexed.set(companyId, documents.add(document.id));
      return call<number>({ op: 'add', companyId, id: document.id, title: document.title, content: document.content });
    },
    async remove(companyId, documentId) {
      await call({ op: 'remove', companyId, documentId });
      const documents = indexed.get(companyId);
      documents?.delete(documentId);
      if (documents?.size === 0) indexed.delete(companyId);
    },
    search: async (companyId, query, options) =>
      indexed.has(companyId) ? call({ op: 'search', companyId, query, ...(options ? { options } : {}) }) : [],
    calibration: async (companyId) => (indexed.has(companyId) ? call<Calibration | null>({ op: 'calibration', companyId }) : null),
    async close() {
      failAll(new KnowledgeWorkerError('the knowledge index worker is stopped'));
      await worker.terminate();
    },
  };
}
