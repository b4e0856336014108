import type { FindQuery, Page, ReadStore } from '../../ports/readStore.js';
import { KNOWLEDGE_DOCUMENTS, type KnowledgeDocumentDoc } from './knowledgeDocumentsProjection.js';

/** The company's knowledge-base documents, newest first. */
export async function listKnowledgeDocuments(readStore: ReadStore, companyId: string, page: Pick<FindQuery, 'limit' | 'cursor'>): Promise<Page<KnowledgeDocumentDoc>> {
  return readStore.find<KnowledgeDocumentDoc>(KNOWLEDGE_DOCUMENTS, {
    where: { companyId },
    orderBy: [{ field: 'createdAt', direction: 'desc' }],
    limit: page.limit,
    cursor: page.cursor ?? null,
  });
}

/** One document's list entry by id (any company's: the caller checks ownership), or null. */
export async function findKnowledgeDocument(readStore: ReadStore, documentId: string): Promise<KnowledgeDocumentDoc | null> {
  return readStore.get<KnowledgeDocumentDoc>(KNOWLEDGE_DOCUMENTS, documentId);
}
