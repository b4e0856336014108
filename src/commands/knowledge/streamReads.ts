import { contentBytes, MAX_CONTENT_PARTS } from '../../domain/knowledge/documents/content.js';
import { knowledgeDocumentDecider, knowledgeDocumentStream } from '../../domain/knowledge/documents/decider.js';
import { type KnowledgeDocumentEvent } from '../../domain/knowledge/documents/events.js';
import { loadState, toDomainEvent } from '../handleCommand.js';
import type { CommandDeps } from '../deps.js';

export interface StoredKnowledgeDocument {
  id: string;
  title: string;
  content: string;
  revision: number;
  bytes: number;
  createdAt: string;
  updatedAt: string;
}

/**
 * The document as it is now, content included, or null (missing, deleted, another company's). Reads only its
 * last append: the newest header (uploaded or revised) and its parts come last in the stream, in at most
 * MAX_CONTENT_PARTS + 1 events, so a document edited a thousand times costs the same as a new one.
 */
export async function readKnowledgeDocument(deps: Pick<CommandDeps, 'eventStore'>, companyId: string, documentId: string): Promise<StoredKnowledgeDocument | null> {
  const { state } = await loadState(deps.eventStore, knowledgeDocumentStream(documentId), knowledgeDocumentDecider);
  if (state.status !== 'active' || state.companyId !== companyId) return null;
  const newest = await deps.eventStore.readStream(knowledgeDocumentStream(documentId), { direction: 'backwards', maxCount: MAX_CONTENT_PARTS + 2 });
  const events = newest.reverse().map((e) => toDomainEvent<KnowledgeDocumentEvent>(e));
  const headerAt = events.findLastIndex((e) => e.type === 'KnowledgeDocumentUploaded' || e.type === 'KnowledgeDocumentRevised' || e.type === 'KnowledgeDocumentAdded');
  const header = events[headerAt];
  if (header === undefined) throw new Error(`knowledge document ${documentId}: no header among its last ${newest.length} events`);
  if (events.some((e, i) => i > headerAt && e.type === 'KnowledgeDocumentDeleted')) return null; // deleted since loadState
  if (header.type === 'KnowledgeDocumentAdded') {
    const { title, content, at } = header.data;
    return { id: documentId, title, content, revision: 1, bytes: contentBytes(content), createdAt: at, updatedAt: at };
  }
  if (header.type !== 'KnowledgeDocumentUploaded' && header.type !== 'KnowledgeDocumentRevised') throw new Error('unreachable');
  const parts = events.slice(headerAt + 1).flatMap((e) => (e.type === 'KnowledgeDocumentPartAdded' ? [e.data] : []));
  if (parts.length !== header.data.parts || parts.some((p, i) => p.index !== i)) {
    throw new Error(`knowledge document ${documentId}: ${parts.length} of ${header.data.parts} content parts found after its header`);
  }
  return {
    id: documentId,
    title: header.data.title,
    content: parts.map((p) => p.text).join(''),
    revision: header.type === 'KnowledgeDocumentRevised' ? header.data.revision : 1,
    bytes: header.data.bytes,
    createdAt: state.createdAt,
    updatedAt: header.data.at,
  };
}
