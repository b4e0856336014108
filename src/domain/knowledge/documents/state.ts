import type { Lifecycle } from '../../lifecycle.js';
import type { KnowledgeDocumentEvent } from './events.js';

/** The content stays in the events (and the search index); the state keeps only what decisions need. */
export type KnowledgeDocumentState =
  | { status: 'none' }
  | { status: 'abandoned'; companyId: string }
  | {
      status: Exclude<Lifecycle, 'none'>;
      documentId: string;
      companyId: string;
      title: string;
      createdAt: string;
      deletedAt: string | null;
      /** Content bytes the company's quota counts for it; null for a document stored before quotas. */
      quotaBytes: number | null;
      /** 1 after the upload, +1 per edit: what an edit must name as its expected revision. */
      revision: number;
    };

export const initialKnowledgeDocumentState: KnowledgeDocumentState = { status: 'none' };

export function evolveKnowledgeDocument(state: KnowledgeDocumentState, event: KnowledgeDocumentEvent): KnowledgeDocumentState {
  switch (event.type) {
    case 'KnowledgeDocumentUploaded':
    case 'KnowledgeDocumentAdded':
      return {
        status: 'active',
        documentId: event.data.documentId,
        companyId: event.data.companyId,
        title: event.data.title,
        createdAt: event.data.at,
        deletedAt: null,
        quotaBytes: event.type === 'KnowledgeDocumentUploaded' ? event.data.bytes : null,
        revision: 1,
      };
    case 'KnowledgeDocumentRevised':
      if (state.status !== 'active') return state;
      // A document stored before quotas stays uncounted when edited (its quota never held it).
      return { ...state, title: event.data.title, quotaBytes: state.quotaBytes === null ? null : event.data.bytes, revision: event.data.revision };
    case 'KnowledgeDocumentPartAdded':
      return state;
    case 'KnowledgeDocumentDeleted':
      return state.status === 'active' ? { ...state, status: 'deleted', deletedAt: event.data.at } : state;
    case 'KnowledgeDocumentAbandoned':
      return state.status === 'none' ? { status: 'abandoned', companyId: event.data.companyId } : state;
  }
}
