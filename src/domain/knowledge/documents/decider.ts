import type { Decider } from '../../decider.js';
import { DomainError } from '../../errors.js';
import { contentBytes, MAX_DOCUMENT_BYTES, MAX_DOCUMENT_TITLE, splitContent } from './content.js';
import type { KnowledgeDocumentEvent } from './events.js';
import { evolveKnowledgeDocument, initialKnowledgeDocumentState, type KnowledgeDocumentState } from './state.js';

export type KnowledgeDocumentCommand =
  | { type: 'AddKnowledgeDocument'; documentId: string; companyId: string; title: string; content: string; chunkCount: number; now: string }
  | { type: 'DeleteKnowledgeDocument'; companyId: string; now: string }
  /** Replaces title and content, if the document is still at `expectedRevision` (else CONFLICT: another edit won). */
  | { type: 'ReviseKnowledgeDocument'; companyId: string; expectedRevision: number; title: string; content: string; chunkCount: number; now: string }
  /** Closes the stream of a document that was reserved but never stored; nothing when it was stored. */
  | { type: 'AbandonKnowledgeDocument'; companyId: string; now: string };

export const knowledgeDocumentDecider: Decider<KnowledgeDocumentCommand, KnowledgeDocumentEvent, KnowledgeDocumentState> = {
  initialState: initialKnowledgeDocumentState,
  evolve: evolveKnowledgeDocument,
  decide(command, state) {
    switch (command.type) {
      case 'ReviseKnowledgeDocument': {
        // Another company's document is indistinguishable from a missing one.
        if (state.status !== 'active' || state.companyId !== command.companyId) throw new DomainError('NOT_FOUND', 'Document not found');
        if (command.expectedRevision !== state.revision) {
          throw new DomainError(
            'CONFLICT',
            `the document was changed meanwhile: it is at revision ${state.revision}, this edit was made on revision ${command.expectedRevision}; reload it and edit again`,
          );
        }
        const { bytes, parts } = validContent(command);
        return [
          {
            type: 'KnowledgeDocumentRevised',
            data: {
              documentId: state.documentId,
              companyId: state.companyId,
              title: command.title,
              bytes,
              chunkCount: command.chunkCount,
              parts: parts.length,
              revision: state.revision + 1,
              at: command.now,
            },
          },
          ...parts.map((text, index): KnowledgeDocumentEvent => ({ type: 'KnowledgeDocumentPartAdded', data: { index, text } })),
        ];
      }
      case 'AddKnowledgeDocument': {
        if (state.status === 'abandoned') {
          throw new DomainError('CONFLICT', 'this upload took too long and its quota reservation was reclaimed; upload the document again');
        }
        if (state.status !== 'none') throw new DomainError('CONFLICT', 'Document already exists');
        const { bytes, parts } = validContent(command);
        return [
          {
            type: 'KnowledgeDocumentUploaded',
            data: {
              documentId: command.documentId,
              companyId: command.companyId,
              title: command.title,
              bytes,
              chunkCount: command.chunkCount,
              parts: parts.length,
              at: command.now,
            },
          },
          ...parts.map((text, index): KnowledgeDocumentEvent => ({ type: 'KnowledgeDocumentPartAdded', data: { index, text } })),
        ];
      }
      case 'AbandonKnowledgeDocument':
        return state.status === 'none' ? [{ type: 'KnowledgeDocumentAbandoned', data: { companyId: command.companyId, at: command.now } }] : [];
      case 'DeleteKnowledgeDocument':
        // Another company's document is indistinguishable from a missing one.
        if (state.status !== 'active' || state.companyId !== command.companyId) throw new DomainError('NOT_FOUND', 'Document not found');
        return [{ type: 'KnowledgeDocumentDeleted', data: { at: command.now } }];
    }
  },
};

/** A document's title and content as every write checks them; its size and content parts. */
function validContent(command: { title: string; content: string }) {
  if (command.title.trim().length === 0 || command.title.length > MAX_DOCUMENT_TITLE) {
    throw new DomainError('VALIDATION_ERROR', `title: must be 1 to ${MAX_DOCUMENT_TITLE} characters`);
  }
  if (command.content.trim().length === 0) throw new DomainError('VALIDATION_ERROR', 'content: must not be empty');
  const bytes = contentBytes(command.content);
  if (bytes > MAX_DOCUMENT_BYTES) {
    throw new DomainError('PAYLOAD_TOO_LARGE', `content: a document may hold at most ${MAX_DOCUMENT_BYTES} bytes (1 MiB)`);
  }
  return { bytes, parts: splitContent(command.content) };
}

export const knowledgeDocumentStream = (documentId: string) => `kbdoc-${documentId}`;
export const KNOWLEDGE_DOCUMENT_STREAM_PREFIX = 'kbdoc-';
