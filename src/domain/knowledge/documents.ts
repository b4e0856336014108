import { z } from 'zod';
import type { Decider } from '../decider.js';
import type { Lifecycle } from '../lifecycle.js';
import { DomainError } from '../errors.js';

/** A knowledge-base document's content limit: 1 MiB of UTF-8. */
export const MAX_DOCUMENT_BYTES = 1024 * 1024;
export const MAX_DOCUMENT_TITLE = 300;
/**
 * A document's content is stored in parts of at most this many bytes of UTF-8, one event each, after a small
 * header event. A single 1 MiB event cost every reader (each projection, the search indexer, its waits) a
 * 1 MiB string to fetch, JSON-parse and validate, and a large-object allocation the young-generation GC
 * cannot reclaim, all inside one event-loop task; 64 KiB pieces are ~3× cheaper to read and collect.
 */
export const CONTENT_PART_BYTES = 64 * 1024;
export const MAX_CONTENT_PARTS = Math.ceil(MAX_DOCUMENT_BYTES / CONTENT_PART_BYTES) + 8; // + parts shortened at a character boundary

export const contentBytes = (content: string) => Buffer.byteLength(content, 'utf8');

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/**
 * Splits content into consecutive pieces of at most `maxBytes` of UTF-8 each, never inside a surrogate pair,
 * so joining them gives the content back. Linear: each piece is measured a few times at most.
 */
export function splitContent(content: string, maxBytes = CONTENT_PART_BYTES): string[] {
  const parts: string[] = [];
  let start = 0;
  while (start < content.length) {
    // A UTF-16 code unit is at least one byte of UTF-8: maxBytes code units is the longest piece that may fit.
    let end = Math.min(content.length, start + maxBytes);
    for (;;) {
      if (end < content.length && end - start > 1 && isHighSurrogate(content.charCodeAt(end - 1))) end--;
      const bytes = contentBytes(content.slice(start, end));
      if (bytes <= maxBytes) break;
      end = start + Math.max(1, Math.floor(((end - start) * maxBytes) / bytes) - 1);
    }
    parts.push(content.slice(start, end));
    start = end;
  }
  return parts;
}

const at = z.iso.datetime();

export const knowledgeDocumentEvents = {
  /** The header of a document whose content follows as `parts` KnowledgeDocumentPartAdded events, in the same append. */
  KnowledgeDocumentUploaded: z.object({
    documentId: z.uuid(),
    companyId: z.uuid(),
    title: z.string().min(1).max(MAX_DOCUMENT_TITLE),
    /** Content size in bytes of UTF-8 (what the company's quota counts). */
    bytes: z.number().int().min(1).max(MAX_DOCUMENT_BYTES),
    /** Passages the content is chunked into, computed once when added. */
    chunkCount: z.number().int().min(0),
    parts: z.number().int().min(1).max(MAX_CONTENT_PARTS),
    at,
  }),
  /**
   * The document's title and content were replaced (an edit): a header like KnowledgeDocumentUploaded whose
   * content follows as `parts` KnowledgeDocumentPartAdded events in the same append. `revision` is the
   * document's new revision (1 after the upload, +1 per edit); the previous content stays in the stream.
   */
  KnowledgeDocumentRevised: z.object({
    documentId: z.uuid(),
    companyId: z.uuid(),
    title: z.string().min(1).max(MAX_DOCUMENT_TITLE),
    bytes: z.number().int().min(1).max(MAX_DOCUMENT_BYTES),
    chunkCount: z.number().int().min(0),
    parts: z.number().int().min(1).max(MAX_CONTENT_PARTS),
    revision: z.number().int().min(2),
    at,
  }),
  /** Piece `index` (from 0) of the content of the document whose header (uploaded or revised) precedes it in its stream. */
  KnowledgeDocumentPartAdded: z.object({
    index: z.number().int().min(0).max(MAX_CONTENT_PARTS - 1),
    // Code units, a bound implied by the byte limit (a code unit is at least one byte): cheap to check on every read.
    text: z.string().min(1).max(CONTENT_PART_BYTES),
  }),
  /**
   * Before this version a document was one event holding all its content. Still read (projections, search,
   * decisions), never written. Documents stored this way were not counted by any quota.
   */
  KnowledgeDocumentAdded: z.object({
    documentId: z.uuid(),
    companyId: z.uuid(),
    title: z.string().min(1).max(MAX_DOCUMENT_TITLE),
    content: z
      .string()
      .min(1)
      .refine((c) => contentBytes(c) <= MAX_DOCUMENT_BYTES, `content must be at most ${MAX_DOCUMENT_BYTES} bytes`),
    /** Absent in the earliest events. */
    chunkCount: z.number().int().min(0).optional(),
    at,
  }),
  KnowledgeDocumentDeleted: z.object({ at }),
  /**
   * The upload that reserved quota for this document id never stored it: its reservation went stale and was
   * reclaimed. Closes the stream, so that upload, should it still arrive, is refused instead of holding
   * content no quota counts.
   */
  KnowledgeDocumentAbandoned: z.object({ companyId: z.uuid(), at }),
};
type Events = typeof knowledgeDocumentEvents;
export type KnowledgeDocumentEvent = { [K in keyof Events]: { type: K; data: z.infer<Events[K]> } }[keyof Events];

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

export type KnowledgeDocumentCommand =
  | { type: 'AddKnowledgeDocument'; documentId: string; companyId: string; title: string; content: string; chunkCount: number; now: string }
  | { type: 'DeleteKnowledgeDocument'; companyId: string; now: string }
  /** Replaces title and content, if the document is still at `expectedRevision` (else CONFLICT: another edit won). */
  | { type: 'ReviseKnowledgeDocument'; companyId: string; expectedRevision: number; title: string; content: string; chunkCount: number; now: string }
  /** Closes the stream of a document that was reserved but never stored; nothing when it was stored. */
  | { type: 'AbandonKnowledgeDocument'; companyId: string; now: string };

export const knowledgeDocumentDecider: Decider<KnowledgeDocumentCommand, KnowledgeDocumentEvent, KnowledgeDocumentState> = {
  initialState: { status: 'none' },
  evolve(state, event) {
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
  },
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
