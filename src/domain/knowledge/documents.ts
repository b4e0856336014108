import { z } from 'zod';
import type { Decider } from '../decider.js';
import { DomainError } from '../errors.js';

/** A knowledge-base document's content limit: 1 MiB of UTF-8. */
export const MAX_DOCUMENT_BYTES = 1024 * 1024;
export const MAX_DOCUMENT_TITLE = 300;

export const contentBytes = (content: string) => Buffer.byteLength(content, 'utf8');

export const knowledgeDocumentEvents = {
  KnowledgeDocumentAdded: z.object({
    documentId: z.uuid(),
    companyId: z.uuid(),
    title: z.string().min(1).max(MAX_DOCUMENT_TITLE),
    content: z
      .string()
      .min(1)
      .refine((c) => contentBytes(c) <= MAX_DOCUMENT_BYTES, `content must be at most ${MAX_DOCUMENT_BYTES} bytes`),
    /** Passages the content is chunked into, computed once when added (absent in events stored before). */
    chunkCount: z.number().int().min(0).optional(),
    at: z.iso.datetime(),
  }),
  KnowledgeDocumentDeleted: z.object({ at: z.iso.datetime() }),
};
type Events = typeof knowledgeDocumentEvents;
export type KnowledgeDocumentEvent = { [K in keyof Events]: { type: K; data: z.infer<Events[K]> } }[keyof Events];

/** The content stays in the events (and the search index); the state keeps only what decisions need. */
export type KnowledgeDocumentState =
  | { status: 'none' }
  | { status: 'active_record' | 'deleted'; documentId: string; companyId: string; title: string; createdAt: string; deletedAt: string | null };

export type KnowledgeDocumentCommand =
  | { type: 'AddKnowledgeDocument'; documentId: string; companyId: string; title: string; content: string; chunkCount: number; now: string }
  | { type: 'DeleteKnowledgeDocument'; companyId: string; now: string };

export const knowledgeDocumentDecider: Decider<KnowledgeDocumentCommand, KnowledgeDocumentEvent, KnowledgeDocumentState> = {
  initialState: { status: 'none' },
  evolve(state, event) {
    switch (event.type) {
      case 'KnowledgeDocumentAdded':
        return {
          status: 'active_record',
          documentId: event.data.documentId,
          companyId: event.data.companyId,
          title: event.data.title,
          createdAt: event.data.at,
          deletedAt: null,
        };
      case 'KnowledgeDocumentDeleted':
        return state.status === 'none' ? state : { ...state, status: 'deleted', deletedAt: event.data.at };
    }
  },
  decide(command, state) {
    if (command.type === 'AddKnowledgeDocument') {
      if (state.status !== 'none') throw new DomainError('CONFLICT', 'Document already exists');
      if (command.title.trim().length === 0 || command.title.length > MAX_DOCUMENT_TITLE) {
        throw new DomainError('VALIDATION_ERROR', `title: must be 1 to ${MAX_DOCUMENT_TITLE} characters`);
      }
      if (command.content.trim().length === 0) throw new DomainError('VALIDATION_ERROR', 'content: must not be empty');
      if (contentBytes(command.content) > MAX_DOCUMENT_BYTES) {
        throw new DomainError('PAYLOAD_TOO_LARGE', `content: a document may hold at most ${MAX_DOCUMENT_BYTES} bytes (1 MiB)`);
      }
      return [
        {
          type: 'KnowledgeDocumentAdded',
          data: {
            documentId: command.documentId,
            companyId: command.companyId,
            title: command.title,
            content: command.content,
            chunkCount: command.chunkCount,
            at: command.now,
          },
        },
      ];
    }
    // Another company's document is indistinguishable from a missing one.
    if (state.status !== 'active_record' || state.companyId !== command.companyId) throw new DomainError('NOT_FOUND', 'Document not found');
    return [{ type: 'KnowledgeDocumentDeleted', data: { at: command.now } }];
  },
};

export const knowledgeDocumentStream = (documentId: string) => `kbdoc-${documentId}`;
export const KNOWLEDGE_DOCUMENT_STREAM_PREFIX = 'kbdoc-';
