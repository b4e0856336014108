import { KNOWLEDGE_DOCUMENT_STREAM_PREFIX } from '../domain/knowledge/documents/decider.js';
import type { Calibration } from '../domain/answers/calibration.js';
import { knowledgeDocumentEvents } from '../domain/knowledge/documents/events.js';
import type { EventFilter, EventStore } from '../ports/eventStore.js';
import type { Logger } from '../ports/logger.js';
import type { RecordedEventOf } from '../projections/projection.js';
import type { KnowledgeIndex, KnowledgeSearchOptions, KnowledgeSearchResult } from '../infrastructure/search/knowledgeIndex.js';
import { inProcessIndexHost, startIndexWorker, type KnowledgeIndexHost } from '../infrastructure/search/knowledgeIndexHost.js';
import { createEventConsumer, type EventConsumer } from './eventConsumer.js';

/**
 * Keeps the in-memory knowledge index (one minisearch index per company) in step with the knowledge-base
 * events. The index lives in this process's memory only, so it is REBUILT ON EVERY START: the subscription
 * begins at the start of the event store and replays every document (a KnowledgeDocumentUploaded header and
 * its KnowledgeDocumentPartAdded content parts, or a single KnowledgeDocumentAdded stored before parts existed)
 * and every KnowledgeDocumentDeleted, chunking each document again with `chunkTexts`, then follows new ones. Every server process builds its
 * own copy; `waitForPosition` gives read-your-writes on the process that served the write.
 *
 * It is a processor of the shared event consumer (`consumer`, or one of its own): the events it reads are read
 * and decoded once for every processor attached, and a failed read or step is retried from its position.
 *
 * Chunking and indexing run on a worker thread (src/infrastructure/search/knowledgeIndexHost.ts); this thread only forwards events, one
 * at a time so a search never waits behind more than one document, and answers waits and searches.
 */

export interface KnowledgeIndexer {
  /**
   * Resolves once every knowledge-base event at or before `position` is in the index (immediately for a
   * position with no knowledge-base event left to apply). Rejects after `timeoutMs` (default 5000) or
   * once the indexer stopped (a failed read is retried, so only the timeout ends a wait while it runs).
   */
  waitForPosition(position: bigint, timeoutMs?: number): Promise<void>;
  /** The company's passages matching `query`, best first (never another company's). */
  search(companyId: string, query: string, options?: KnowledgeSearchOptions): Promise<KnowledgeSearchResult[]>;
  /** Number of passages the document will be indexed as (computed off this thread). */
  chunkCount(document: { title: string; content: string }): Promise<number>;
  /** The company's calibration of the decision to answer, as the index last fitted it (null: none yet). */
  calibration(companyId: string): Promise<Calibration | null>;
  /** Position through which the log is applied (every knowledge-base event up to it is in the index), null before the first. */
  position(): bigint | null;
  stop(): Promise<void>;
}

export interface StartKnowledgeIndexerOptions {
  eventStore: EventStore;
  /** An index to run in this thread (tests); by default a worker thread holds it. */
  index?: KnowledgeIndex;
  /** Where chunking and indexing run; overrides `index`. */
  host?: KnowledgeIndexHost;
  logger: Logger;
  /** The consumer it follows the log on; by default one of its own. */
  consumer?: EventConsumer;
  /** Events per read of its own consumer; small, since a (pre-parts) document event may carry 1 MiB of content. Default 16. */
  batchSize?: number;
}

export class KnowledgeIndexerWaitError extends Error {
  override readonly name = 'KnowledgeIndexerWaitError';
}

export const KNOWLEDGE_EVENT_TYPES = ['KnowledgeDocumentUploaded', 'KnowledgeDocumentRevised', 'KnowledgeDocumentPartAdded', 'KnowledgeDocumentAdded', 'KnowledgeDocumentDeleted'] as const;
/** A stored knowledge-base event of the types the index follows, its data typed by its schema. */
type KnowledgeEvent = RecordedEventOf<typeof knowledgeDocumentEvents, (typeof KNOWLEDGE_EVENT_TYPES)[number]>;

export function startKnowledgeIndexer(options: StartKnowledgeIndexerOptions): KnowledgeIndexer {
  const { eventStore, logger } = options;
  const host = options.host ?? (options.index ? inProcessIndexHost(options.index) : startIndexWorker());
  const filter: EventFilter = { eventTypes: [...KNOWLEDGE_EVENT_TYPES], streamPrefixes: [KNOWLEDGE_DOCUMENT_STREAM_PREFIX] };
  const apply = documentIndexing(host, logger);
  let processed: bigint | null = null;
  let stopped = false;
  const waiters = positionWaiters({ eventStore, filter, logger, processed: () => processed });

  const ownConsumer = options.consumer ? null : createEventConsumer({ eventStore, logger, batchSize: Math.max(1, options.batchSize ?? 16) });
  const attached = (options.consumer ?? ownConsumer!).attach({
    name: 'knowledge-index',
    filter,
    // In memory only: after a failure it goes on from the last event it applied; on a new start from the beginning.
    resumeAfter: async () => processed,
    handle: async (events, through) => {
      // The filter lets only the knowledge-base types through, each validated against its schema on read.
      for (const event of events as KnowledgeEvent[]) {
        await apply(event);
        processed = event.position;
        waiters.checkAll();
      }
      processed = through;
      waiters.checkAll();
    },
    retryDelay: (err, attempt) => {
      const delay = Math.min(30_000, 250 * 2 ** (attempt - 1));
      logger.error({ err, position: processed === null ? null : String(processed), retryInMs: delay }, 'knowledge index could not follow the event store; retrying');
      return delay;
    },
  });

  return {
    waitForPosition(position, timeoutMs = 5_000) {
      if (processed !== null && processed >= position) return Promise.resolve();
      if (stopped) return Promise.reject(new KnowledgeIndexerWaitError('the knowledge indexer is stopped'));
      return waiters.wait(position, timeoutMs);
    },
    search: (companyId, query, searchOptions) => host.search(companyId, query, searchOptions),
    calibration: (companyId) => host.calibration(companyId),
    chunkCount: (document) => host.chunkCount(document),
    position: () => processed,
    async stop() {
      if (stopped) return;
      stopped = true;
      await attached.detach();
      await ownConsumer?.stop();
      waiters.rejectAll(new KnowledgeIndexerWaitError('the knowledge indexer is stopped'));
      await host.close();
    },
  };
}

/**
 * Applies knowledge-base events to the index host: assembles uploaded documents from their parts, adds,
 * replaces and removes documents. A bad event is logged and skipped (the index is a cache rebuilt on start).
 */
function documentIndexing(host: KnowledgeIndexHost, logger: Logger): (event: KnowledgeEvent) => Promise<void> {
  /** documentId → companyId: a deletion event does not repeat the company. */
  const owners = new Map<string, string>();
  /**
   * Documents whose header arrived and whose content parts are still coming (in the same append, so in the
   * next events or batches). Holds only documents in flight: an entry goes once its last part arrived.
   */
  const assembling = new Map<string, { companyId: string; title: string; parts: string[]; expected: number }>();

  const addPart = async (documentId: string, part: { index: number; text: string }) => {
    const doc = assembling.get(documentId);
    if (!doc) throw new Error(`content part ${part.index} without its document header`);
    if (part.index !== doc.parts.length) {
      assembling.delete(documentId);
      throw new Error(`content part ${part.index} arrived when part ${doc.parts.length} was expected`);
    }
    doc.parts.push(part.text);
    if (doc.parts.length === doc.expected) {
      assembling.delete(documentId);
      await host.add(doc.companyId, { id: documentId, title: doc.title, content: doc.parts.join('') });
      owners.set(documentId, doc.companyId);
    }
  };

  return async (event) => {
    const documentId = event.stream.slice(KNOWLEDGE_DOCUMENT_STREAM_PREFIX.length);
    try {
      // An edit (Revised) arrives like an upload; adding its content replaces the document's old passages.
      if (event.type === 'KnowledgeDocumentUploaded' || event.type === 'KnowledgeDocumentRevised') {
        assembling.set(documentId, { companyId: event.data.companyId, title: event.data.title, parts: [], expected: event.data.parts });
      } else if (event.type === 'KnowledgeDocumentPartAdded') {
        await addPart(documentId, event.data);
      } else if (event.type === 'KnowledgeDocumentAdded') {
        const { companyId, title, content } = event.data;
        await host.add(companyId, { id: documentId, title, content });
        owners.set(documentId, companyId);
      } else if (event.type === 'KnowledgeDocumentDeleted') {
        const companyId = owners.get(documentId) ?? event.metadata.companyId;
        if (companyId !== undefined) await host.remove(companyId, documentId);
        owners.delete(documentId);
      }
    } catch (err) {
      // The index is a cache rebuilt on the next start; one bad document must not stop the others.
      logger.error({ err, documentId, eventType: event.type, position: String(event.position) }, 'knowledge index: event not applied, search will miss this change until restart');
    }
  };
}

interface Waiter {
  position: bigint;
  resolve(): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
  checking: boolean;
}

/** Callers waiting for the index to reach a position: resolved when it does, or when no knowledge event is left up to it. */
function positionWaiters(options: { eventStore: EventStore; filter: EventFilter; logger: Logger; processed(): bigint | null }) {
  const { eventStore, filter, logger } = options;
  const waiters = new Set<Waiter>();

  const settle = (waiter: Waiter) => {
    waiters.delete(waiter);
    clearTimeout(waiter.timer);
  };

  /** Resolves the waiter when nothing it waits for is left: reached, or no knowledge event up to its position. */
  const check = (waiter: Waiter) => {
    if (!waiters.has(waiter)) return;
    const processed = options.processed();
    if (processed !== null && processed >= waiter.position) {
      settle(waiter);
      waiter.resolve();
      return;
    }
    if (waiter.checking) return;
    waiter.checking = true;
    const from = processed;
    eventStore
      .readAll({ after: from, maxCount: 1, filter })
      .then((next) => {
        waiter.checking = false;
        if (!waiters.has(waiter)) return;
        const first = next[0];
        if (first === undefined || first.position > waiter.position) {
          settle(waiter);
          waiter.resolve();
        } else if (options.processed() !== from) {
          check(waiter); // a batch was applied meanwhile: look again from there
        }
      })
      .catch((err: unknown) => {
        waiter.checking = false;
        logger.warn({ err }, 'knowledge index: could not check the event store while waiting; still waiting');
      });
  };

  return {
    checkAll() {
      for (const waiter of [...waiters]) check(waiter);
    },
    wait(position: bigint, timeoutMs: number) {
      return new Promise<void>((resolve, reject) => {
        const waiter: Waiter = {
          position,
          resolve,
          reject,
          checking: false,
          timer: setTimeout(() => {
            settle(waiter);
            reject(new KnowledgeIndexerWaitError(`the knowledge index did not reach position ${position} within ${timeoutMs} ms`));
          }, timeoutMs),
        };
        waiters.add(waiter);
        check(waiter);
      });
    },
    rejectAll(err: Error) {
      for (const waiter of [...waiters]) {
        settle(waiter);
        waiter.reject(err);
      }
    },
  };
}
