import { z } from 'zod';

/**
 * A company's knowledge-base quota (`kbquota-<companyId>`): how many documents it stores and how many bytes of
 * content they hold, against the configured limits (KNOWLEDGE_MAX_DOCUMENTS, KNOWLEDGE_MAX_BYTES).
 *
 * An upload reserves a slot and its bytes here BEFORE its document is appended; the document's own stream
 * then holds the content. Commands on this stream are decided one at a time on the latest state (queued per
 * stream in-process, expected-revision retries across processes), so two uploads racing for the last slot
 * are serialised and only one is granted.
 *
 * Lifecycle of one document's entry: Reserved (pending) → Confirmed (its document was stored) → Released
 * (deleted). A pending reservation whose document never came (the process died in between, or the append
 * failed) is Released too: by the failing request itself, or, once stale, by the next reservation (see
 * commands/knowledge/knowledgeQuota.ts, which first closes that document's stream so a late append fails).
 *
 * The state is a few numbers, the PENDING reservations and the set of documents counted (heldDocuments.ts, a
 * set cheap to copy on write: deciders must not mutate state, since handleCommand caches it and re-decides on
 * it after a conflict). Pending entries are the in-flight uploads (normally none; at most the document limit,
 * since a pending one counts as a document). Releasing a stored document takes its byte count from the
 * document itself (its header event). A release is decided on the set of documents counted, so it happens
 * once on every engine: a repeated DELETE finds the document no longer counted and releases nothing. (Its
 * event id, derived from the document id, is not what guards it: EventStoreDB stores a repeated id again
 * unless it is retried at the same expected revision.)
 */

export const knowledgeQuotaEvents = {
  KnowledgeQuotaReserved: z.object({ documentId: z.uuid(), bytes: z.number().int().min(0), at: z.iso.datetime() }),
  KnowledgeQuotaConfirmed: z.object({ documentId: z.uuid(), at: z.iso.datetime() }),
  /**
   * A stored document's content changed size (an edit): `deltaBytes` is added to the bytes counted. An edit
   * that grows a document is resized before its document is written, one that shrinks it after; `editId`
   * names the edit (and, with `undo`, the reversal of a growth whose edit then failed).
   */
  KnowledgeQuotaResized: z.object({ documentId: z.uuid(), editId: z.uuid(), deltaBytes: z.number().int(), undo: z.boolean().optional(), at: z.iso.datetime() }),
  KnowledgeQuotaReleased: z.object({
    documentId: z.uuid(),
    bytes: z.number().int().min(0),
    /** deleted: the document was deleted; failed: its append failed; abandoned: it never came (reclaimed when stale). */
    reason: z.enum(['deleted', 'failed', 'abandoned']),
    at: z.iso.datetime(),
  }),
};
type Events = typeof knowledgeQuotaEvents;
export type KnowledgeQuotaEvent = { [K in keyof Events]: { type: K; data: z.infer<Events[K]>; id?: string } }[keyof Events];

