import { chunkTexts } from '../../domain/knowledge/chunking.js';
import { KNOWLEDGE_DOCUMENT_STREAM_PREFIX } from '../../domain/knowledge/documents/decider.js';
import { knowledgeDocumentEvents } from '../../domain/knowledge/documents/events.js';
import type { Doc } from '../../ports/readStore.js';
import { defineProjection } from '../projection.js';

/**
 * The knowledge-base document list. The content itself stays in the events (and the in-memory search
 * index); the read model keeps the title and the number of passages the document was split into, as the
 * header event records it (computed off the HTTP thread when added), so the content parts are not applied
 * here. Single-event documents stored before that field existed are chunked here (`chunkTexts`, the same
 * deterministic chunking the search index uses).
 */
export interface KnowledgeDocumentDoc extends Doc {
  companyId: string;
  title: string;
  chunkCount: number;
  createdAt: string;
  /** Absent on documents projected before edits existed (= createdAt, revision 1). */
  updatedAt?: string;
  revision?: number;
}

export const KNOWLEDGE_DOCUMENTS = 'knowledgeDocuments';

export const knowledgeDocumentsProjection = defineProjection(knowledgeDocumentEvents, {
  name: 'knowledgeDocuments',
  collections: [{ name: KNOWLEDGE_DOCUMENTS, indexes: ['companyId', ['companyId', 'createdAt']] }],
  eventTypes: ['KnowledgeDocumentUploaded', 'KnowledgeDocumentAdded', 'KnowledgeDocumentRevised', 'KnowledgeDocumentDeleted'],
  async apply(event, ctx) {
    const id = event.stream.slice(KNOWLEDGE_DOCUMENT_STREAM_PREFIX.length);
    switch (event.type) {
      case 'KnowledgeDocumentUploaded':
        ctx.put(KNOWLEDGE_DOCUMENTS, {
          id,
          companyId: event.data.companyId,
          title: event.data.title,
          chunkCount: event.data.chunkCount,
          createdAt: event.data.at,
          updatedAt: event.data.at,
          revision: 1,
        } satisfies KnowledgeDocumentDoc);
        return;
      case 'KnowledgeDocumentRevised': {
        const doc = await ctx.get<KnowledgeDocumentDoc>(KNOWLEDGE_DOCUMENTS, id);
        if (!doc) return;
        ctx.put(KNOWLEDGE_DOCUMENTS, { ...doc, title: event.data.title, chunkCount: event.data.chunkCount, updatedAt: event.data.at, revision: event.data.revision } satisfies KnowledgeDocumentDoc);
        return;
      }
      case 'KnowledgeDocumentAdded':
        ctx.put(KNOWLEDGE_DOCUMENTS, {
          id,
          companyId: event.data.companyId,
          title: event.data.title,
          chunkCount: event.data.chunkCount ?? chunkTexts({ title: event.data.title, content: event.data.content }).length,
          createdAt: event.data.at,
        } satisfies KnowledgeDocumentDoc);
        return;
      case 'KnowledgeDocumentDeleted':
        ctx.delete(KNOWLEDGE_DOCUMENTS, id);
    }
  },
});
