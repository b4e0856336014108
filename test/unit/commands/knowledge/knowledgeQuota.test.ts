import { describe, expect, it } from 'vitest';
import { loadState } from '../../../../src/commands/handleCommand.js';
import { addKnowledgeDocument, deleteKnowledgeDocument } from '../../../../src/commands/knowledge/knowledgeDocuments.js';
import { knowledgeQuotaDecider, knowledgeQuotaStream } from '../../../../src/domain/knowledge/quota/decider.js';
import { MemoryEventStore } from '../../../../src/infrastructure/memory/memoryEventStore.js';
import { silentLogger } from '../../../../src/ports/logger.js';

const CO = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc';
const USER = 'uuuuuuuu-uuuu-4uuu-8uuu-uuuuuuuuuuuu'.replaceAll('u', 'a');
const limits = { maxDocuments: 10, maxBytes: 10_000 };

/**
 * The quota on both kinds of event store: the strict one (SQLite's guarantees) and one with only EventStoreDB's
 * (a repeated event id recognised only when retried at the same expected revision), so a release that relies on
 * the store refusing a repeated id fails here, not in production.
 */
const stores = [
  ['strict (SQLite) semantics', () => new MemoryEventStore()],
  ['EventStoreDB semantics', () => new MemoryEventStore({ semantics: 'eventstoredb' })],
] as const;

describe.each(stores)('knowledge quota release (%s)', (_name, makeStore) => {
  const setup = () => {
    const eventStore = makeStore();
    const deps = { eventStore, clock: { now: () => new Date('2026-01-01T00:00:00Z') }, logger: silentLogger };
    const add = (title: string) =>
      addKnowledgeDocument(deps, { companyId: CO, userId: USER, title, content: 'x'.repeat(400), chunkCount: 1, limits }).then((r) => r.documentId);
    const remove = (documentId: string) => deleteKnowledgeDocument(deps, { companyId: CO, userId: USER, documentId });
    const usage = async () => {
      const { state } = await loadState(eventStore, knowledgeQuotaStream(CO), knowledgeQuotaDecider);
      return { documents: state.documents, bytes: state.bytes };
    };
    return { add, remove, usage };
  };

  it('a repeated DELETE (404) releases nothing more: 2 documents of 400 B, one deleted 3 times → 1 document, 400 B', async () => {
    const { add, remove, usage } = setup();
    const first = await add('First');
    await add('Second');
    expect(await usage()).toEqual({ documents: 2, bytes: 800 });
    await remove(first);
    await expect(remove(first)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(remove(first)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await usage()).toEqual({ documents: 1, bytes: 400 });
  });
});
