import { describe, expect, it } from 'vitest';
import { knowledgeDocumentDecider, knowledgeDocumentStream } from '../../../src/domain/knowledge/documents/decider.js';
import type { EventStore } from '../../../src/ports/eventStore.js';
import { silentLogger } from '../../../src/ports/logger.js';
import { MemoryEventStore } from '../../../src/infrastructure/memory/memoryEventStore.js';
import { createKnowledgeIndex } from '../../../src/infrastructure/search/knowledgeIndex.js';
import { startKnowledgeIndexer } from '../../../src/processing/knowledgeIndexer.js';

const C1 = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc';
const C2 = 'dddddddd-dddd-4ddd-8ddd-dddddddddddd';
const D1 = 'eeeeeeee-eeee-4eee-8eee-eeeeeeeeeeee';
const D2 = 'ffffffff-ffff-4fff-8fff-ffffffffffff';
const T0 = '2026-01-01T00:00:00.000Z';

let n = 0;
const add = (store: EventStore, documentId: string, companyId: string, title: string, content: string) =>
  store.append(
    knowledgeDocumentStream(documentId),
    [{ id: `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`, type: 'KnowledgeDocumentAdded', data: { documentId, companyId, title, content, at: T0 }, metadata: { companyId } }],
    'no_stream',
  );
const remove = (store: EventStore, documentId: string, companyId: string) =>
  store.append(knowledgeDocumentStream(documentId), [{ id: `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`, type: 'KnowledgeDocumentDeleted', data: { at: T0 }, metadata: { companyId } }], 0n);

/** A document as the service stores it now: a header event, then its content in parts (one append). */
const upload = (store: EventStore, documentId: string, companyId: string, title: string, content: string) => {
  const events = knowledgeDocumentDecider.decide(
    { type: 'AddKnowledgeDocument', documentId, companyId, title, content, chunkCount: 1, now: T0 },
    knowledgeDocumentDecider.initialState,
  );
  return store.append(
    knowledgeDocumentStream(documentId),
    events.map((e) => ({ id: `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`, type: e.type, data: e.data, metadata: { companyId } })),
    'no_stream',
  );
};

describe('knowledge indexer', () => {
  it('re-indexes an edited document: its old passages leave the index, the new ones enter, also on a rebuild', async () => {
    const store = new MemoryEventStore();
    const stored = await upload(store, D1, C1, 'Catalogue', 'Kayaks are in aisle one.');
    const state = (await store.readStream(knowledgeDocumentStream(D1))).reduce(
      (s, e) => knowledgeDocumentDecider.evolve(s, e as never),
      knowledgeDocumentDecider.initialState,
    );
    const revised = knowledgeDocumentDecider.decide(
      { type: 'ReviseKnowledgeDocument', companyId: C1, expectedRevision: 1, title: 'Catalogue', content: 'Canoes are in aisle two.', chunkCount: 1, now: T0 },
      state,
    );
    const indexer = startKnowledgeIndexer({ eventStore: store, index: createKnowledgeIndex(), logger: silentLogger, batchSize: 1 });
    try {
      await indexer.waitForPosition(stored.position);
      expect((await indexer.search(C1, 'kayaks')).map((r) => r.documentId)).toEqual([D1]);
      const edit = await store.append(
        knowledgeDocumentStream(D1),
        revised.map((e) => ({ id: `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`, type: e.type, data: e.data, metadata: { companyId: C1 } })),
        stored.nextRevision,
      );
      await indexer.waitForPosition(edit.position);
      expect(await indexer.search(C1, 'kayaks')).toEqual([]);
      expect((await indexer.search(C1, 'canoes')).map((r) => r.text)).toEqual(['Canoes are in aisle two.']);
    } finally {
      await indexer.stop();
    }
    // A fresh indexer replaying upload then edit ends with the edit only.
    const rebuilt = startKnowledgeIndexer({ eventStore: store, index: createKnowledgeIndex(), logger: silentLogger });
    try {
      await rebuilt.waitForPosition((await store.readStream(knowledgeDocumentStream(D1))).at(-1)!.position);
      expect(await rebuilt.search(C1, 'kayaks')).toEqual([]);
      expect((await rebuilt.search(C1, 'canoes')).map((r) => r.documentId)).toEqual([D1]);
    } finally {
      await rebuilt.stop();
    }
  });

  it('indexes a document stored as a header and content parts, across subscription batches', async () => {
    const store = new MemoryEventStore();
    // ~200 KiB: 4 parts; with batches of 2 events the header and its parts arrive in three batches.
    const filler = Array.from({ length: 20_000 }, (_, i) => `filler${i % 97}`).join(' ');
    const stored = await upload(store, D1, C1, 'Catalogue', `Kayaks are in aisle one. ${filler} Tents are in aisle nine.`);
    const indexer = startKnowledgeIndexer({ eventStore: store, index: createKnowledgeIndex(), logger: silentLogger, batchSize: 2 });
    try {
      await indexer.waitForPosition(stored.position);
      const documents = async (q: string) => [...new Set((await indexer.search(C1, q)).map((r) => r.documentId))];
      expect(await documents('kayaks')).toEqual([D1]);
      expect(await documents('tents')).toEqual([D1]); // from the last part
      expect(await indexer.search(C2, 'tents')).toEqual([]);

      const deleted = await store.append(knowledgeDocumentStream(D1), [{ id: '00000000-0000-4000-8000-777777777777', type: 'KnowledgeDocumentDeleted', data: { at: T0 }, metadata: { companyId: C1 } }], stored.nextRevision);
      await indexer.waitForPosition(deleted.position);
      expect(await indexer.search(C1, 'tents')).toEqual([]);
    } finally {
      await indexer.stop();
    }
  });

  it('rebuilds the index from the events already stored, then follows new ones (on its worker thread)', async () => {
    const store = new MemoryEventStore();
    await add(store, D1, C1, 'Shipping', 'We ship parcels to Norway.');
    const indexer = startKnowledgeIndexer({ eventStore: store, logger: silentLogger });
    try {
      const head = await store.headPosition();
      await indexer.waitForPosition(head!);
      expect((await indexer.search(C1, 'parcels Norway')).map((r) => r.documentId)).toEqual([D1]);
      expect(await indexer.search(C2, 'parcels Norway')).toEqual([]);

      const added = await add(store, D2, C2, 'Returns', 'Parcels can be returned within 30 days.');
      await indexer.waitForPosition(added.position);
      expect((await indexer.search(C2, 'parcels')).map((r) => r.documentId)).toEqual([D2]);
      expect((await indexer.search(C1, 'parcels')).map((r) => r.documentId)).toEqual([D1]);

      const deleted = await remove(store, D1, C1);
      await indexer.waitForPosition(deleted.position);
      expect(await indexer.search(C1, 'parcels')).toEqual([]);
      expect(indexer.position()).toBe(deleted.position);
    } finally {
      await indexer.stop();
    }
  });

  it('does not wait for a position no knowledge-base event is behind', async () => {
    const store = new MemoryEventStore();
    await add(store, D1, C1, 'Shipping', 'We ship parcels to Norway.');
    const other = await store.append('company-x', [{ id: '00000000-0000-4000-8000-999999999999', type: 'Unrelated', data: {} }], 'no_stream');
    const indexer = startKnowledgeIndexer({ eventStore: store, index: createKnowledgeIndex(), logger: silentLogger });
    try {
      await indexer.waitForPosition(other.position, 2000);
      expect(await indexer.search(C1, 'Norway')).toHaveLength(1);
    } finally {
      await indexer.stop();
    }
  });

  it('a wait past the last knowledge-base event resolves; after stop() a wait rejects', async () => {
    const store = new MemoryEventStore();
    const indexer = startKnowledgeIndexer({ eventStore: store, index: createKnowledgeIndex(), logger: silentLogger });
    const first = await add(store, D1, C1, 'A', 'alpha');
    await indexer.waitForPosition(first.position);
    await expect(indexer.waitForPosition(first.position + 1000n, 50)).resolves.toBeUndefined(); // nothing left to index
    await indexer.stop();
    await expect(indexer.waitForPosition(first.position + 1000n)).rejects.toThrow(/stopped/);
  });
});
