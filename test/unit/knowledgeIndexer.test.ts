import { describe, expect, it } from 'vitest';
import { knowledgeDocumentStream } from '../../src/domain/knowledge/documents.js';
import type { EventStore } from '../../src/ports/eventStore.js';
import { silentLogger } from '../../src/ports/logger.js';
import { MemoryEventStore } from '../../src/infrastructure/memory/memoryEventStore.js';
import { createKnowledgeIndex } from '../../src/infrastructure/search/knowledgeIndex.js';
import { startKnowledgeIndexer } from '../../src/infrastructure/search/knowledgeIndexer.js';

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

describe('knowledge indexer', () => {
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
