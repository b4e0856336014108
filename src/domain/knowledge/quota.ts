import { z } from 'zod';
import type { Decider } from '../decider.js';
import { DomainError } from '../errors.js';

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
 * The state is a few numbers plus the PENDING reservations only, not a map of every document: deciders must
 * not mutate state (handleCommand caches it and re-decides on it after a conflict), and copying a 500-entry
 * map on every event would make folding a long stream O(events × documents) (~60 µs per copy here: seconds
 * for a company with years of uploads). Pending entries are the in-flight uploads (normally none; at most
 * the document limit, since a pending one counts as a document). Releasing a stored document takes its byte
 * count from the document itself (its header event), and a release is applied once because its event id
 * derives from the document id (the store refuses the same id twice).
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

export interface KnowledgeQuotaState {
  /** Documents counted: stored ones and pending reservations. */
  documents: number;
  /** Content bytes counted, likewise. */
  bytes: number;
  /** Reservations whose document is not confirmed yet: documentId → its bytes and when it was reserved. */
  pending: Readonly<Record<string, { bytes: number; at: string }>>;
}

export interface KnowledgeQuotaLimits {
  maxDocuments: number;
  maxBytes: number;
}

export type KnowledgeQuotaCommand =
  | { type: 'ReserveKnowledgeQuota'; documentId: string; bytes: number; limits: KnowledgeQuotaLimits; now: string }
  | { type: 'ConfirmKnowledgeQuota'; documentId: string; now: string }
  /** An edit changes a stored document's size by `deltaBytes` (QUOTA_EXCEEDED when a growth does not fit). */
  | { type: 'ResizeKnowledgeQuota'; documentId: string; editId: string; deltaBytes: number; undo?: boolean; limits: KnowledgeQuotaLimits; now: string }
  /** `bytes`: the document's own byte count, used when it is no longer pending (a stored document). */
  | { type: 'ReleaseKnowledgeQuota'; documentId: string; bytes: number; reason: 'deleted' | 'failed' | 'abandoned'; now: string };

const without = (pending: KnowledgeQuotaState['pending'], documentId: string) => {
  const { [documentId]: _gone, ...rest } = pending;
  return rest;
};

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(bytes % (1024 * 1024) === 0 ? 0 : 1)} MiB`;

export const knowledgeQuotaDecider: Decider<KnowledgeQuotaCommand, KnowledgeQuotaEvent, KnowledgeQuotaState> = {
  initialState: { documents: 0, bytes: 0, pending: {} },
  evolve(state, event) {
    switch (event.type) {
      case 'KnowledgeQuotaReserved':
        return {
          documents: state.documents + 1,
          bytes: state.bytes + event.data.bytes,
          pending: { ...state.pending, [event.data.documentId]: { bytes: event.data.bytes, at: event.data.at } },
        };
      case 'KnowledgeQuotaConfirmed':
        return { ...state, pending: without(state.pending, event.data.documentId) };
      case 'KnowledgeQuotaResized':
        return { ...state, bytes: Math.max(0, state.bytes + event.data.deltaBytes) };
      case 'KnowledgeQuotaReleased':
        return {
          documents: Math.max(0, state.documents - 1),
          bytes: Math.max(0, state.bytes - event.data.bytes),
          pending: without(state.pending, event.data.documentId),
        };
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'ReserveKnowledgeQuota': {
        if (state.pending[command.documentId]) return []; // already reserved (a retry)
        const { maxDocuments, maxBytes } = command.limits;
        if (state.documents + 1 > maxDocuments) {
          throw new DomainError(
            'QUOTA_EXCEEDED',
            `knowledge-base quota exceeded: a company may store at most ${maxDocuments} documents and this one has ${state.documents}; delete documents to make room`,
          );
        }
        if (state.bytes + command.bytes > maxBytes) {
          throw new DomainError(
            'QUOTA_EXCEEDED',
            `knowledge-base quota exceeded: a company may store at most ${maxBytes} bytes (${mib(maxBytes)}) of document content; ${state.bytes} bytes are in use and this document has ${command.bytes}; delete documents to make room`,
          );
        }
        return [{ type: 'KnowledgeQuotaReserved', data: { documentId: command.documentId, bytes: command.bytes, at: command.now } }];
      }
      case 'ResizeKnowledgeQuota': {
        const { documentId, editId, deltaBytes, undo, limits, now } = command;
        if (deltaBytes === 0) return [];
        if (deltaBytes > 0 && !undo && state.bytes + deltaBytes > limits.maxBytes) {
          throw new DomainError(
            'QUOTA_EXCEEDED',
            `knowledge-base quota exceeded: a company may store at most ${limits.maxBytes} bytes (${mib(limits.maxBytes)}) of document content; ${state.bytes} bytes are in use and this edit adds ${deltaBytes}; delete documents or shorten this one`,
          );
        }
        return [{ type: 'KnowledgeQuotaResized', data: { documentId, editId, deltaBytes, ...(undo ? { undo } : {}), at: now } }];
      }
      case 'ConfirmKnowledgeQuota':
        if (!state.pending[command.documentId]) return []; // confirmed or released already
        return [{ type: 'KnowledgeQuotaConfirmed', data: { documentId: command.documentId, at: command.now } }];
      case 'ReleaseKnowledgeQuota': {
        const pending = state.pending[command.documentId];
        // A pending reservation is released with the bytes it reserved; a stored document with its own count.
        // A document released before (or never counted) is not refused here: the event's id, derived from the
        // document id, makes the store refuse a second release.
        if (!pending && command.reason !== 'deleted') return [];
        return [
          {
            type: 'KnowledgeQuotaReleased',
            data: { documentId: command.documentId, bytes: pending ? pending.bytes : command.bytes, reason: command.reason, at: command.now },
          },
        ];
      }
    }
  },
};

export const knowledgeQuotaStream = (companyId: string) => `kbquota-${companyId}`;

/** A pending reservation older than this has lost its upload: an append never takes this long (SQLite waits 5 s at most). */
export const STALE_RESERVATION_MS = 5 * 60_000;

/** Pending reservations older than STALE_RESERVATION_MS at `now`, oldest first. */
export function staleReservations(state: KnowledgeQuotaState, now: Date): string[] {
  const cutoff = now.getTime() - STALE_RESERVATION_MS;
  return Object.entries(state.pending)
    .filter(([, r]) => Date.parse(r.at) <= cutoff)
    .sort((a, b) => a[1].at.localeCompare(b[1].at))
    .map(([id]) => id);
}
