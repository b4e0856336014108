import { z } from 'zod';
import { CONTENT_PART_BYTES, contentBytes, MAX_CONTENT_PARTS, MAX_DOCUMENT_BYTES, MAX_DOCUMENT_TITLE } from './content.js';

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

